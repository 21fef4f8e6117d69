/**
 * The `cds` CLI (§7) against a temporary SQLite data directory: as a real child process (the bundled command, its
 * output streams and exit codes), and the rest of the cases on the same program run in this process (`cdsInProcess`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/adapters.js';
import { loadConfig } from '../../src/config.js';
import { createServices } from '../../src/services.js';
import { cdsInProcess, cdsRunner } from '../support/cli.js';

const PASSWORD = 'cli-password-1';

describe('cds CLI (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const cds = cdsInProcess(dataDir);
  const cdsProcess = cdsRunner(dataDir);
  const json = async (...args: string[]) => {
    const result = await cds(...args, '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const fails = async (pattern: RegExp, ...args: string[]) => {
    const result = await cds(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(pattern);
  };

  let projectId = 0;
  let client = { id: '', secret: '' };
  let token = '';

  it('migrate creates the database and prints {migrated: true}, as a process too', async () => {
    expect(await json('migrate')).toEqual({ migrated: true });
    expect(existsSync(join(dataDir, 'cds.sqlite'))).toBe(true);
    const human = await cds('migrate');
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n')).toHaveLength(1);
    expect(await cdsProcess('migrate', '--json')).toEqual({ code: 0, stdout: '{"migrated":true}\n', stderr: '' });
  });

  it('project create prints the credentials once and reuses an organisation by name', async () => {
    const created = await json('project', 'create', '--org', 'acme', '--name', 'game');
    expect(Object.keys(created).sort()).toEqual(['client_id', 'client_secret', 'org_id', 'project_id']);
    projectId = created.project_id as number;
    client = { id: created.client_id as string, secret: created.client_secret as string };
    const second = await json('project', 'create', '--org', 'acme', '--name', 'second');
    expect(second.org_id).toBe(created.org_id);
    expect(second.project_id).not.toBe(projectId);
    const human = await cds('project', 'create', '--org', 'other', '--name', 'third');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/client_secret:\s+cs_/);
  });

  it('role create prints {project_id, name, permissions}', async () => {
    const role = await json(
      'role',
      'create',
      '--project',
      String(projectId),
      '--name',
      'mod',
      '--permissions',
      'client.documents,mod.kick',
    );
    expect(role).toEqual({ project_id: projectId, name: 'mod', permissions: ['client.documents', 'mod.kick'] });
  });

  it('user create prints {id, username}, with player or exactly the roles named', async () => {
    const p = String(projectId);
    expect(await json('user', 'create', '--project', p, '--username', 'alice', '--password', PASSWORD)).toEqual({
      id: 1,
      username: 'alice',
    });
    expect(
      await json('user', 'create', '--project', p, '--username', 'bob', '--password', PASSWORD, '--role', 'player,mod'),
    ).toEqual({ id: 2, username: 'bob' });
    const human = await cds(
      'user',
      'create',
      '--project',
      p,
      '--username',
      'carol',
      '--password',
      PASSWORD,
      '--role',
      'mod',
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Created user 3 \(carol\)/);
  });

  it('token prints {access_token}', async () => {
    const issued = await json('token', '--project', String(projectId), '--user', '1');
    expect(Object.keys(issued)).toEqual(['access_token']);
    token = issued.access_token as string;
  });

  it('reports errors on stderr and exits 1', async () => {
    const p = String(projectId);
    await fails(
      /Unknown role.*nope/,
      'user',
      'create',
      '--project',
      p,
      '--username',
      'dan',
      '--password',
      PASSWORD,
      '--role',
      'nope',
    );
    await fails(
      /Username already taken/,
      'user',
      'create',
      '--project',
      p,
      '--username',
      'ALICE',
      '--password',
      PASSWORD,
    );
    await fails(/username/, 'user', 'create', '--project', p, '--username', 'a b', '--password', PASSWORD);
    await fails(/password/, 'user', 'create', '--project', p, '--username', 'shorty', '--password', 'short');
    await fails(
      /Project not found/,
      'user',
      'create',
      '--project',
      '999',
      '--username',
      'erin',
      '--password',
      PASSWORD,
    );
    await fails(/User not found/, 'token', '--project', p, '--user', '999');
    await fails(/positive integer/, 'token', '--project', 'abc', '--user', '1');
    await fails(/--name/, 'project', 'create', '--org', 'acme');
  });

  it('as a process, exits 1 with the message on stderr, for a failure and for a refused command line', async () => {
    for (const args of [
      ['token', '--project', '999', '--user', '1'],
      ['project', 'create', '--org', 'acme'],
    ]) {
      const result = await cdsProcess(...args);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/Project not found|--name/);
    }
  });

  it('made users and tokens the service accepts', async () => {
    const config = loadConfig({ CDS_DATA_DIR: dataDir });
    const storage = await openStorage(config);
    try {
      const { auth } = createServices(config, storage);
      expect(await auth.authenticateClient(client.id, client.secret)).toBe(projectId);
      const login = await auth.login(projectId, { username: 'alice', password: PASSWORD });
      expect(login.user).toMatchObject({ id: 1, username: 'alice' });
      expect(await auth.verifyAccessToken(token, projectId)).toBe(1);
      await auth.requirePermission(projectId, 1, 'client.documents');
      expect((await auth.me(projectId, 2)).roles).toEqual(['player', 'mod']);
      expect(await auth.me(projectId, 3)).toMatchObject({
        roles: ['mod'],
        permissions: ['client.documents', 'mod.kick'],
      });
    } finally {
      await storage.close();
    }
  });
});
