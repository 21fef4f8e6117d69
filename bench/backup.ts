/**
 * `cds backup` of a large SQLite database (§14, issue 34). Builds a database of about
 * `--megabytes` of documents (about 1 KB of data each) in the service's schema, runs the service
 * on it, and times three ways of copying it, each at rest and while one client writes through the
 * service without pause (a document, then a realtime value, each sent once the one before is
 * answered, from a worker thread: the one-step copy blocks this thread):
 *
 * - `one step`: what `cds backup` does (`backupSqlite`: the online backup API, every page in one
 *   step, so one read transaction);
 * - `steps of 100 pages`: the online backup as `cds backup` ran it before issue 34 (better-sqlite3's
 *   default), which starts over whenever another connection commits between two steps; given up
 *   after `--give-up` seconds;
 * - `VACUUM INTO`: one statement, one read transaction, the file rebuilt table by table.
 *
 * Copies go to the same file system as the database and are deleted after each run. Prints a
 * markdown table (seconds: min / median / max of `--runs`; the writer's acknowledged writes per
 * second while each copy ran).
 *
 * Standalone: `npx tsx bench/backup.ts [--megabytes 1024] [--runs 3] [--give-up 120] [--dir DIR] [--from-source]`.
 * `--dir` keeps the database there and reuses it on the next run (it is built only when missing).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { backupSqlite } from '../src/storage/sqlite/backup.js';
import { ChildServer, cleanEnv, freePort, startScriptNodeFlags } from './child.js';
import { serviceEntry } from './service-entry.js';

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const megabytes = Number(argValue('--megabytes', '1024'));
const runs = Number(argValue('--runs', '3'));
const giveUpSeconds = Number(argValue('--give-up', '120'));
const keptDir = process.argv.includes('--dir') ? argValue('--dir', '') : null;
const log = (line: string) => process.stderr.write(`${line}\n`);

const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'cds-bench-backup-'));
mkdirSync(dir, { recursive: true });
const database = join(dir, 'cds.sqlite');
const credentialsFile = join(dir, 'bench-credentials.json');
const copyFile = join(dir, 'copy.sqlite');

interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** Starts the service as `npm start` does (bench/service-entry.ts) on `dir`; resolves once /healthz answers. */
async function startService(): Promise<{ server: ChildServer; base: string }> {
  const port = await freePort();
  const env = cleanEnv({
    CDS_DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: String(port),
    CDS_WORKERS: '1',
    CDS_LOG_LEVEL: 'info',
  });
  const spawnedAt = performance.now();
  const server = ChildServer.spawn(serviceEntry(), env, join(dir, 'service.log'), startScriptNodeFlags());
  const base = `http://127.0.0.1:${port}`;
  await server.waitFor(`${base}/healthz`, spawnedAt);
  return { server, base };
}

/** The first start's credentials, then about `megabytes` of documents inserted directly (the service stopped). */
async function build(): Promise<Credentials> {
  log(`building a database of about ${megabytes} MB in ${dir}`);
  rmSync(join(dir, 'service.log'), { force: true });
  const { server } = await startService();
  const output = readFileSync(server.logFile, 'utf8');
  await server.stop();
  const credential = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';
  const credentials = { clientId: credential('client_id'), clientSecret: credential('client_secret') };
  const projectId = Number(credential('project_id'));
  if (!credentials.clientId || !projectId) throw new Error(`no first-start credentials in:\n${output}`);

  const db = new Database(database);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  const insert = db.prepare(
    `WITH RECURSIVE g(x) AS (SELECT @from UNION ALL SELECT x + 1 FROM g WHERE x < @from + @n - 1)
     INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at)
     SELECT @project, 'items/i' || printf('%08d', x), '', 'items', ${uuid},
       jsonb_object('n', x, 'name', 'item ' || x, 'text', hex(randomblob(480))), @now, @now FROM g`,
  );
  const batch = 50_000;
  const started = performance.now();
  for (let from = 0; statSync(database).size < megabytes * 2 ** 20; from += batch) {
    insert.run({ from, n: batch, project: projectId, now: Date.now() });
  }
  db.pragma('journal_mode = WAL');
  db.close();
  log(
    `built ${(statSync(database).size / 2 ** 20).toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  writeFileSync(credentialsFile, JSON.stringify(credentials));
  return credentials;
}

/** A writer in a worker thread: PUTs one after the other; `acknowledged[0]` counts the answered ones. */
function startWriter(base: string, headers: Record<string, string>) {
  const acknowledged = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { base, headers, acknowledged } = workerData;
    let writing = true;
    parentPort.on('message', () => { writing = false; });
    (async () => {
      for (let s = 0; writing; s++) {
        const [url, body] = s % 2 === 0
          ? [base + '/documents/docs/bench-writes/w' + s, { data: { s } }]
          : [base + '/realtime/db/bench-writes/w' + s, { value: s }];
        const response = await fetch(url, { method: 'PUT', headers, body: JSON.stringify(body) });
        const text = await response.text();
        if (response.status !== 200) throw new Error('PUT ' + url + ': ' + response.status + ' ' + text);
        Atomics.add(acknowledged, 0, 1);
      }
      parentPort.postMessage('stopped');
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { base, headers, acknowledged } });
  const stopped = new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    count: () => Atomics.load(acknowledged, 0),
    async stop() {
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

type Method = 'one step' | 'steps of 100 pages' | 'VACUUM INTO';

/** One copy of the database; seconds, or null when given up. */
async function copy(method: Method): Promise<{ seconds: number | null; restarts: number }> {
  rmSync(copyFile, { force: true });
  const started = performance.now();
  let restarts = 0;
  if (method === 'one step') {
    await backupSqlite(database, copyFile, null);
  } else {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      if (method === 'VACUUM INTO') {
        db.prepare('VACUUM INTO ?').run(copyFile);
      } else {
        let remaining = Number.POSITIVE_INFINITY;
        const finished = await db
          .backup(copyFile, {
            progress: (progress) => {
              if (progress.remainingPages > remaining) restarts += 1;
              remaining = progress.remainingPages;
              if (performance.now() - started > giveUpSeconds * 1000) throw new Error('given up');
              return 100;
            },
          })
          .then(
            () => true,
            () => false,
          );
        if (!finished) return { seconds: null, restarts };
      }
    } finally {
      db.close();
    }
  }
  return { seconds: (performance.now() - started) / 1000, restarts };
}

const credentials: Credentials = existsSync(database)
  ? (JSON.parse(readFileSync(credentialsFile, 'utf8')) as Credentials)
  : await build();
const bytes = statSync(database).size;
const { server, base } = await startService();
const client = {
  'x-client-id': credentials.clientId,
  'x-client-secret': credentials.clientSecret,
  'content-type': 'application/json',
};
const signup = await fetch(`${base}/auth/signup`, {
  method: 'POST',
  headers: client,
  body: JSON.stringify({ username: `bench_${Date.now()}`, password: 'long-enough-password' }),
});
if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
const { access_token } = (await signup.json()) as { access_token: string };
const headers = { ...client, authorization: `Bearer ${access_token}` };

const lines: string[] = [];
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))]?.toFixed(1) ?? '–';
  return `${at(0)} / ${at(0.5)} / ${at(1)}`;
};
const loadAtStart = loadavg()[0] ?? 0;
try {
  for (const method of ['one step', 'steps of 100 pages', 'VACUUM INTO'] as Method[]) {
    const atRest: number[] = [];
    for (let run = 0; run < runs; run++) {
      const { seconds } = await copy(method);
      log(`${method}, at rest: ${seconds?.toFixed(2) ?? 'given up'} s`);
      if (seconds !== null) atRest.push(seconds);
    }
    const copyBytes = existsSync(copyFile) ? statSync(copyFile).size : 0;
    const underLoad: number[] = [];
    let given = 0;
    let restarts = 0;
    let writes = 0;
    let writeSeconds = 0;
    // The old way never finishes under the writer: one attempt is enough.
    const loadRuns = method === 'steps of 100 pages' ? 1 : runs;
    for (let run = 0; run < loadRuns; run++) {
      const writer = startWriter(base, headers);
      while (writer.count() < 100) await new Promise((resolve) => setTimeout(resolve, 20));
      const before = writer.count();
      const started = performance.now();
      const result = await copy(method);
      writes += writer.count() - before;
      writeSeconds += (performance.now() - started) / 1000;
      await writer.stop();
      restarts += result.restarts;
      log(`${method}, under the writer: ${result.seconds?.toFixed(2) ?? 'given up'} s, ${result.restarts} restarts`);
      if (result.seconds === null) given += 1;
      else underLoad.push(result.seconds);
    }
    const loaded = given > 0 ? `did not finish in ${giveUpSeconds} s (${restarts} restarts)` : summary(underLoad);
    lines.push(
      `| ${method} | ${summary(atRest)} | ${loaded} | ${(writes / writeSeconds).toFixed(0)} | ${(copyBytes / 2 ** 20).toFixed(0)} MB |`,
    );
  }
} finally {
  await server.stop();
  rmSync(copyFile, { force: true });
  if (!keptDir) rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(
  [
    `Database ${(bytes / 2 ** 20).toFixed(0)} MB (${megabytes} MB asked), ${runs} runs each; ${process.platform} ${process.arch}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average ${loadAtStart.toFixed(2)} at start`,
    '',
    '| copy | at rest, s (min / median / max) | under the writer, s | writes/s during the copy | copy size |',
    '| --- | --- | --- | --- | --- |',
    ...lines,
    '',
  ].join('\n'),
);
