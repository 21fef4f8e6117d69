/**
 * `cds rules get | set | test` (§9) on SQLite, and `rules set` announcing on Redis: the command's program run in
 * this process (`cdsInProcess`; cli.test.ts runs it as a process), its output and exit code as a process's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';
import { cdsInProcess } from '../support/cli.js';
import { redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';

const redis = await redisUnavailable();
const OWNER_ONLY = { documents: [{ match: 'users/{uid}', allow: { read: 'request.auth.uid == uid' } }] };

describe('cds rules (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-rules-cli-'));
  const prefix = uniqueRedisPrefix();
  const cds = cdsInProcess(dataDir);
  let project = '';
  let ann = 0;
  let bob = 0;
  const file = (name: string, content: unknown) => {
    const path = join(dataDir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const ok = async (...args: string[]) => {
    const result = await cds(...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    project = String(JSON.parse(await ok('project', 'create', '--org', 'o', '--name', 'rules', '--json')).project_id);
    const user = async (username: string) =>
      JSON.parse(
        await ok('user', 'create', '--project', project, '--username', username, '--password', 'pass-1234', '--json'),
      ).id as number;
    ann = await user('ann');
    bob = await user('bob');
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('get prints the open ruleset at revision 0, then what set saved', async () => {
    expect(JSON.parse(await ok('rules', 'get', '--project', project))).toEqual({
      rules: OPEN_RULESET,
      revision: 0,
      updated_at: null,
    });
    expect(await ok('rules', 'set', '--project', project, file('bare.json', OWNER_ONLY))).toBe(
      `Set the access rules of project ${project}: revision 1.\n`,
    );
    const got = JSON.parse(await ok('rules', 'get', '--project', project, '--json'));
    expect(got).toMatchObject({ rules: { ...OWNER_ONLY, realtime: [] }, revision: 1 });
    // The object `rules get` prints is accepted too: a rollback is setting an older one.
    const again = JSON.parse(await ok('rules', 'set', '--project', project, file('got.json', got), '--json'));
    expect(again).toMatchObject({ rules: got.rules, revision: 2 });
  });

  it('set refuses an invalid ruleset or an unknown project with a message and exit 1', async () => {
    const bad = await cds(
      'rules',
      'set',
      '--project',
      project,
      file('bad.json', { documents: [{ match: 'a{b}', allow: {} }] }),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^cds: documents\[0\]\.match: /);
    const missing = await cds('rules', 'set', '--project', '999', file('ok.json', OWNER_ONLY));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Project not found/);
    expect(JSON.parse(await ok('rules', 'get', '--project', project)).revision).toBe(2);
  });

  it('test prints each decision and exits 1 naming each case that differs from its expect', async () => {
    const cases = [
      { area: 'documents', method: 'get', path: `users/${ann}`, user_id: ann, expect: 'allow' },
      { area: 'documents', method: 'get', path: `/users/${bob}/`, user_id: ann, expect: 'allow' },
      { area: 'realtime', method: 'write', path: 'lobby', user_id: bob, expect: 'deny' },
    ];
    const failing = await cds('rules', 'test', '--project', project, file('cases.json', { cases }));
    expect(failing.code).toBe(1);
    expect(failing.stdout).toBe(
      `cases[0] (users/${ann}): allow (rule 0)\ncases[1] (/users/${bob}/): deny\ncases[2] (lobby): deny\n`,
    );
    expect(failing.stderr).toBe(`cases[1] (/users/${bob}/): expected allow, got deny\n`);

    const fixed = cases.map((c, i) => (i === 1 ? { ...c, expect: 'deny' } : c));
    const passing = await cds('rules', 'test', '--project', project, file('array.json', fixed), '--json');
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout)).toEqual({
      results: [
        { allowed: true, rule: 0 },
        { allowed: false, rule: null },
        { allowed: false, rule: null },
      ],
    });

    const open = file('open.json', { rules: OPEN_RULESET });
    const underOpen = await cds('rules', 'test', '--project', project, file('cases2.json', fixed), '--rules', open);
    expect(underOpen.code).toBe(1);
    expect(underOpen.stderr).toBe(
      `cases[1] (/users/${bob}/): expected deny, got allow\ncases[2] (lobby): expected deny, got allow\n`,
    );
  });

  it('test refuses an unknown user, a bad case and invalid --rules with exit 1', async () => {
    const unknown = [{ area: 'documents', method: 'get', path: 'users/1', user_id: 99_999 }];
    const result = await cds('rules', 'test', '--project', project, file('unknown.json', unknown));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('cds: cases[0].user_id: unknown user 99999\n');
    const shape = await cds('rules', 'test', '--project', project, file('shape.json', [{ area: 'documents' }]));
    expect(shape.stderr).toBe('cds: cases[0].method: must be a string\n');
    const badRules = await cds(
      'rules',
      'test',
      '--project',
      project,
      file('c.json', []),
      '--rules',
      file('r.json', { x: [] }),
    );
    expect(badRules.code).toBe(1);
    expect(badRules.stderr).toBe('cds: x: unknown key\n');
  });

  describe.skipIf(redis)('with REDIS_URL', () => {
    it('set announces the new revision on the configured bus', async () => {
      const subscriber = new Redis(TEST_REDIS_URL);
      const heard: string[] = [];
      try {
        await subscriber.subscribe(`${prefix}:rules`);
        subscriber.on('message', (_channel: string, message: string) => heard.push(message));
        const withRedis = cdsInProcess(dataDir, { REDIS_URL: TEST_REDIS_URL, CDS_REDIS_PREFIX: prefix });
        const result = await withRedis('rules', 'set', '--project', project, file('r3.json', OWNER_ONLY));
        expect(result.code).toBe(0);
        const deadline = Date.now() + 2_000;
        while (heard.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(heard.map((m) => JSON.parse(m))).toEqual([{ projectId: Number(project), revision: 3 }]);
      } finally {
        subscriber.disconnect();
      }
    });
  });
});
