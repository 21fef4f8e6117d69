/**
 * Server function modules as an operator writes them (§16), loaded by real processes: TypeScript
 * and ES modules anywhere on disk importing `client-data-service/functions`; `cds functions list`
 * prints what a start would load, and stops with the file named when a module cannot be loaded;
 * the service started on the folder answers `POST /functions/{name}`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cdsInProcess, cdsRunner } from '../support/cli.js';
import { startServerProcess } from '../support/server-process.js';

const root = mkdtempSync(join(tmpdir(), 'cds-functions-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder of modules, by file name. */
function folder(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const REWARDS_TS = `import { defineFunctions, type FunctionContext } from 'client-data-service/functions';
const greet = (ctx: FunctionContext, input: unknown): { hello: unknown; project: number } => ({ hello: input, project: ctx.project_id });
export default defineFunctions({
  projects: '*',
  rpc: { greet, zeta: () => 1 },
  schedule: { hourly: { cron: '0 * * * *', run: async () => {} }, daily: { cron: '@daily', run: () => undefined } },
});
`;
const PING_MJS = `import { defineFunctions } from 'client-data-service/functions';
export default defineFunctions({ projects: [1, 2], rpc: { ping: () => 'pong' }, before: { 'auth.signup': () => undefined } });
`;
const SCHEDULE_MJS = (
  projects: string,
  schedule: string,
) => `import { defineFunctions } from 'client-data-service/functions';
export default defineFunctions({ projects: ${projects}, schedule: { ${schedule} } });
`;
const HOOK_MJS = (projects: string, hook: string) => `import { defineFunctions } from 'client-data-service/functions';
export default defineFunctions({ projects: ${projects}, before: { '${hook}': () => undefined } });
`;

describe('server function modules (§16) loaded by real processes', () => {
  const withDir = (dir: string) => cdsRunner(join(root, 'data'), { CDS_FUNCTIONS_DIR: dir });

  it('lists what a start loads: TypeScript and ES modules, by file, sorted names', async () => {
    const dir = folder('good', { 'rewards.ts': REWARDS_TS, 'ping.mjs': PING_MJS, 'notes.txt': 'not a module' });
    const result = await withDir(dir)('functions', 'list', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        file: join(dir, 'ping.mjs'),
        projects: [1, 2],
        rpc: ['ping'],
        before: ['auth.signup'],
        after: [],
        schedule: [],
      },
      {
        file: join(dir, 'rewards.ts'),
        projects: '*',
        rpc: ['greet', 'zeta'],
        before: [],
        after: [],
        schedule: ['daily', 'hourly'],
      },
    ]);
    const none = await withDir(join(root, 'missing'))('functions', 'list');
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No server functions');
  });

  it('stops with the file named when a module fails to load, has the wrong shape, or clashes', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['throws', { 'broken.mjs': "throw new Error('boom at load');\n" }, /broken\.mjs: failed to load: boom at load/],
      ['syntax', { 'typo.ts': 'export default {{;\n' }, /typo\.ts: failed to load/],
      ['shape', { 'plain.mjs': "export default { projects: '*', rpc: {} };\n" }, /plain\.mjs: .*defineFunctions/],
      [
        'bad cron',
        { 'cron.mjs': SCHEDULE_MJS("'*'", "tick: { cron: '61 * * * *', run: () => 1 }") },
        /cron\.mjs: schedule 'tick': cron '61 \* \* \* \*' does not parse/,
      ],
      [
        'schedule clash',
        {
          'a.mjs': SCHEDULE_MJS('[5]', "tick: { cron: '0 * * * *', run: () => 1 }"),
          'b.mjs': SCHEDULE_MJS("'*'", "tick: { cron: '@daily', run: () => 1 }"),
        },
        /b\.mjs: schedule 'tick' is also defined by .*a\.mjs/,
      ],
      [
        'unknown hook',
        { 'hook.mjs': HOOK_MJS("'*'", 'documents.read') },
        /hook\.mjs: before hook 'documents.read' is not one of/,
      ],
      [
        'hook clash',
        { 'a.mjs': HOOK_MJS('[3]', 'realtime.write'), 'b.mjs': HOOK_MJS('[2, 3]', 'realtime.write') },
        /b\.mjs: before hook 'realtime.write' is also defined by .*a\.mjs/,
      ],
      [
        'clash',
        { 'a.mjs': PING_MJS, 'b.ts': PING_MJS.replace('[1, 2]', "'*'") },
        /b\.ts: rpc 'ping' is also defined by .*a\.mjs/,
      ],
    ];
    for (const [name, files, message] of cases) {
      const result = await withDir(folder(name, files))('functions', 'list');
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toMatch(message);
    }
  }, 60_000);

  it('serves the folder’s RPCs when the service starts on it, and refuses to start on a broken one', async () => {
    const dir = folder('served', { 'rewards.ts': REWARDS_TS });
    const dataDir = join(root, 'served-data');
    // The project, user and token are set up by the cds program in this process; the service is the process here.
    const setup = cdsInProcess(dataDir);
    const created = await setup('project', 'create', '--org', 'o', '--name', 'p', '--json');
    const project = JSON.parse(created.stdout);
    const user = JSON.parse(
      (
        await setup(
          'user',
          'create',
          '--project',
          String(project.project_id),
          '--username',
          'ann',
          '--password',
          'password-123',
          '--json',
        )
      ).stdout,
    );
    const token = JSON.parse(
      (await setup('token', '--project', String(project.project_id), '--user', String(user.id), '--json')).stdout,
    ).access_token;
    const server = await startServerProcess({ CDS_DATA_DIR: dataDir, CDS_FUNCTIONS_DIR: dir });
    try {
      const res = await fetch(`${server.baseUrl}/functions/greet`, {
        method: 'POST',
        headers: {
          'x-client-id': project.client_id,
          'x-client-secret': project.client_secret,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'ann' }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ result: { hello: { name: 'ann' }, project: project.project_id } });
    } finally {
      await server.stop();
    }
    const broken = folder('broken-start', { 'broken.mjs': "throw new Error('boom at start');\n" });
    await expect(startServerProcess({ CDS_DATA_DIR: dataDir, CDS_FUNCTIONS_DIR: broken }, 10_000)).rejects.toThrow(
      /broken\.mjs: failed to load: boom at start/,
    );
  }, 60_000);
});
