/**
 * `cds backup` / `cds restore` (§14): a backup taken under write load restores to a consistent
 * state (a prefix of the acknowledged writes), one taken at rest to an identical §8 export, and
 * tokens issued before stay valid (the generated secret travels in the backup).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createProjectWithPlayer } from '../support/app.js';
import { cdsRunner } from '../support/cli.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-backup-'));
  dirs.push(dir);
  return dir;
};
/** The service over the SQLite database of `dataDir`, its JWT secret generated there. */
const serve = (dataDir: string) =>
  buildApp(loadConfig({ CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent', CDS_JWT_SECRET: '' }));

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('cds backup and cds restore on SQLite', () => {
  it('backs up under write load to a consistent state, and at rest to an identical export', async () => {
    const source = freshDir();
    const app: App = await serve(source);
    const { project, headers } = await createProjectWithPlayer(app, 'org', 'game');
    const write = (i: number) =>
      Promise.all([
        app.http.inject({ method: 'PUT', url: `/documents/docs/items/i${i}`, headers, payload: { data: { i } } }),
        app.http.inject({ method: 'PUT', url: `/realtime/db/counters/c${i}`, headers, payload: { value: i } }),
      ]);
    let written = 0;
    let loading = true;
    const load = (async () => {
      while (loading) await write(written++);
    })();
    const backupFile = join(freshDir(), 'under-load.sqlite');
    const cds = cdsRunner(source);
    const result = await cds('backup', backupFile, '--json');
    loading = false;
    await load;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ file: backupFile, bytes: expect.any(Number) });
    expect(written).toBeGreaterThan(0);

    const target = freshDir();
    const restore = cdsRunner(target);
    expect((await restore('restore', backupFile)).code).toBe(0);
    const restored = await serve(target);
    const snapshot = await restored.services.transfer.exportProject(project.projectId);
    const docs = snapshot.documents.map((doc) => doc.data.i as number).sort((a, b) => a - b);
    // Every write committed before the copy is there, in order: items 0..k-1 with nothing missing.
    expect(docs).toEqual(docs.map((_, i) => i));
    const tree = (snapshot.realtime as { counters?: Record<string, number> } | null)?.counters ?? {};
    expect(Object.keys(tree).length).toBeGreaterThanOrEqual(docs.length - 1);
    // A token issued by the original service still works on the restored one.
    const me = await restored.http.inject({ method: 'GET', url: '/auth/me', headers });
    expect(me.statusCode).toBe(200);
    await restored.close();

    // At rest, the restored export is identical.
    const restFile = join(freshDir(), 'at-rest.sqlite');
    expect((await cds('backup', restFile)).code).toBe(0);
    const expected = await app.services.transfer.exportProject(project.projectId);
    await app.close();
    const again = freshDir();
    expect((await cdsRunner(again)('restore', restFile)).code).toBe(0);
    const reopened = await serve(again);
    expect(await reopened.services.transfer.exportProject(project.projectId)).toEqual(expected);
    await reopened.close();
  });

  it('refuses to restore under a running service, a file that is not a backup, and on PostgreSQL', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'cds.pid'), String(process.pid));
    const running = await cdsRunner(dir)('restore', '/nonexistent');
    expect(running.code).toBe(1);
    expect(running.stderr).toMatch(/stop it first/);
    const notBackup = join(freshDir(), 'plain.txt');
    writeFileSync(notBackup, 'hello');
    expect((await cdsRunner(freshDir())('restore', notBackup)).code).toBe(1);
    const postgres = cdsRunner(freshDir(), { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' });
    for (const command of [
      ['backup', 'x'],
      ['restore', 'x'],
    ]) {
      const result = await postgres(...command);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/pg_dump/);
    }
  });
});
