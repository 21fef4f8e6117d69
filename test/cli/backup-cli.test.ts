/**
 * `cds backup` / `cds restore` (§14): a backup taken under write load restores to a consistent
 * state (a prefix of the acknowledged writes), one taken at rest to an identical §8 export, and
 * tokens issued before stay valid (the generated secret travels in the backup). A backup of a
 * database of 10,000 pages finishes while a client writes through the running service without
 * pause, and holds every write acknowledged before it began (test/storage/sqlite-backup.test.ts
 * interleaves the commits with the copy exactly, in one process).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createProjectWithPlayer } from '../support/app.js';
import { cdsRunner, type RunResult } from '../support/cli.js';
import { CLI_BUNDLE } from '../support/cli-bundle.js';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-backup-'));
  dirs.push(dir);
  return dir;
};
/** The service over the SQLite database of `dataDir`, its JWT secret generated there. */
const serve = (dataDir: string) =>
  buildApp(loadConfig({ CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent', CDS_JWT_SECRET: '' }));

const servers: ServerProcess[] = [];
/** Rows of 3,000 random bytes in the database under test: about 40 MB, 10,000 pages. */
const FILLER_ROWS = 10_000;

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `cds backup <file> --json` on `dataDir`, killed after `timeoutMs` (code -1 then), with when it started and its duration. */
const backupWithin = (dataDir: string, file: string, timeoutMs: number) =>
  new Promise<RunResult & { started: number; ms: number }>((resolve) => {
    const env = {
      ...process.env,
      CDS_DATA_DIR: dataDir,
      DATABASE_URL: '',
      CDS_JWT_SECRET: '',
      CDS_LOG_LEVEL: 'silent',
    };
    const started = performance.now();
    execFile(
      process.execPath,
      [CLI_BUNDLE, 'backup', file, '--json'],
      { env, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr, started, ms: performance.now() - started });
      },
    );
  });
const credential = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

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

  it('finishes under a client writing through the service without pause, with every write acknowledged before it', async () => {
    const source = freshDir();
    // Pages for the copy: a table of random bytes, in the database before the service first opens it.
    const filler = new Database(join(source, 'cds.sqlite'));
    filler.pragma('journal_mode = WAL');
    filler.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)');
    filler
      .prepare(
        'WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ?) INSERT INTO filler SELECT x, randomblob(3000) FROM g',
      )
      .run(FILLER_ROWS);
    filler.close();
    const server = await startServerProcess({ CDS_DATA_DIR: source, CDS_JWT_SECRET: '' });
    servers.push(server);
    const projectId = Number(credential(server.output(), 'project_id'));
    const client = {
      'x-client-id': credential(server.output(), 'client_id'),
      'x-client-secret': credential(server.output(), 'client_secret'),
      'content-type': 'application/json',
    };
    const signup = await fetch(`${server.baseUrl}/auth/signup`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ username: 'backup_player', password: 'long-enough-password' }),
    });
    expect(signup.status).toBe(201);
    const { access_token } = (await signup.json()) as { access_token: string };
    const headers = { ...client, authorization: `Bearer ${access_token}` };
    const put = async (url: string, body: object) => {
      const response = await fetch(`${server.baseUrl}${url}`, { method: 'PUT', headers, body: JSON.stringify(body) });
      // Read every answer: an unread body keeps its connection busy, and the next write opens another.
      const answer = await response.text();
      if (response.status !== 200) throw new Error(`PUT ${url}: ${response.status} ${answer}`);
    };
    // Write s: a document when even, a realtime value when odd; each sent once the one before is acknowledged.
    const acknowledgedAt: number[] = [];
    let writing = true;
    const writer = (async () => {
      for (let s = 0; writing; s++) {
        if (s % 2 === 0) await put(`/documents/docs/items/i${s}`, { data: { s } });
        else await put(`/realtime/db/counters/c${s}`, { value: s });
        acknowledgedAt[s] = performance.now();
      }
    })();
    while (acknowledgedAt.length < 50) await Promise.race([writer, new Promise((resolve) => setTimeout(resolve, 10))]);
    const acknowledgedBefore = acknowledgedAt.length;
    const file = join(freshDir(), 'while-writing.sqlite');
    const backup = await backupWithin(source, file, 40_000);
    writing = false;
    await writer;
    expect(backup.code, `${backup.stderr} after ${Math.round(backup.ms)} ms`).toBe(0);
    expect(JSON.parse(backup.stdout)).toEqual({ file, bytes: expect.any(Number) });
    // The client kept writing while the copy ran.
    expect(
      acknowledgedAt.filter((at) => at > backup.started && at < backup.started + backup.ms).length,
    ).toBeGreaterThan(0);

    const target = freshDir();
    expect((await cdsRunner(target)('restore', file)).code).toBe(0);
    const restored = await serve(target);
    try {
      const snapshot = await restored.services.transfer.exportProject(projectId);
      const documents = snapshot.documents.filter((doc) => doc.path.startsWith('items/'));
      const counters = (snapshot.realtime as { counters?: Record<string, number> } | null)?.counters ?? {};
      const present = [...documents.map((doc) => doc.data.s as number), ...Object.values(counters)].sort(
        (a, b) => a - b,
      );
      // A prefix of the writes, in their order, holding every one acknowledged before the backup began.
      expect(present).toEqual(present.map((_, s) => s));
      expect(present.length).toBeGreaterThanOrEqual(acknowledgedBefore);
      const me = await restored.http.inject({ method: 'GET', url: '/auth/me', headers });
      expect(me.statusCode).toBe(200);
    } finally {
      await restored.close();
    }
  }, 90_000);

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
