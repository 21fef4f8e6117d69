/**
 * Start time of a built checkout (issue 34): from spawning `npm start` (its `prestart` only checks
 * that dist/ is current: scripts/build-state.mjs) until `/healthz` first answers 200, on an empty
 * data directory (first start: migrations, the first organisation and owner) and on an existing
 * one, with `CDS_WORKERS=1` and with the default (one worker per core, behind a primary); and the
 * same `node` command without npm, for npm's share. Prints a markdown table (min / median / max).
 *
 * Standalone, after `npm run build`: `npx tsx bench/start-time.ts [--runs 5]`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_ENTRY, staleBuild } from '../scripts/build-state.mjs';
import { cleanEnv, freePort, ROOT, startScriptNodeFlags } from './child.js';

const runsArgument = process.argv.indexOf('--runs');
const runs = runsArgument >= 0 ? Number(process.argv[runsArgument + 1]) : 5;
const POLL_MS = 5;
const TIMEOUT_MS = 60_000;

if (!existsSync(join(ROOT, SERVICE_ENTRY))) throw new Error(`no ${SERVICE_ENTRY}: run npm run build first`);
// An outdated build starts as fast (prestart warns once more on stderr); the table says so.
const stale = staleBuild(ROOT);

type Command = 'npm start' | 'node';

/** Spawns the service in its own process group; resolves with the milliseconds until /healthz answered 200. */
async function timeStart(command: Command, dataDir: string, workers: string | null): Promise<number> {
  const port = await freePort();
  const env = cleanEnv({
    CDS_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    CDS_LOG_LEVEL: 'warn',
    ...(workers ? { CDS_WORKERS: workers } : {}),
  });
  const [file, args] =
    command === 'npm start'
      ? ['npm', ['start', '--silent']]
      : [process.execPath, [...startScriptNodeFlags(), SERVICE_ENTRY]];
  const started = performance.now();
  const child = spawn(file, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  try {
    while (performance.now() - started < TIMEOUT_MS) {
      if (exited) throw new Error(`${command} exited before answering:\n${stderr}`);
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      await sleep(POLL_MS);
    }
    throw new Error(`${command} did not answer within ${TIMEOUT_MS} ms:\n${stderr}`);
  } finally {
    await stopGroup(child);
  }
}

/** SIGTERM to the whole group (npm, its shell, the service and its workers); SIGKILL after 15 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(15_000).then(() => true)]);
  if (timedOut) process.kill(-child.pid, 'SIGKILL');
  await exited;
  // The group's last processes (workers draining) end shortly after the leader.
  await sleep(200);
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.round(q * (sorted.length - 1))] ?? Number.NaN);
  return `${at(0)} / ${at(0.5)} / ${at(1)}`;
};

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-start-'));
  dirs.push(dir);
  return dir;
};
const loadAtStart = loadavg()[0] ?? 0;
const lines: string[] = [];
try {
  for (const command of ['npm start', 'node'] as Command[]) {
    // The default (one process) and every core.
    for (const workers of [null, String(availableParallelism())]) {
      const label = workers ? `CDS_WORKERS=${workers}` : 'default (1 worker)';
      const existing = freshDir();
      await timeStart(command, existing, workers); // the existing directory's first start, not counted
      const empty: number[] = [];
      const again: number[] = [];
      for (let run = 0; run < runs; run++) {
        empty.push(await timeStart(command, freshDir(), workers));
        again.push(await timeStart(command, existing, workers));
      }
      process.stderr.write(`${command}, ${label}: empty ${summary(empty)} ms, existing ${summary(again)} ms\n`);
      lines.push(`| \`${command}\` | ${label} | ${summary(empty)} | ${summary(again)} |`);
    }
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(
  [
    `${runs} runs each${stale ? ` (the build older than its sources: ${stale.source})` : ''}; ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}; load average ${loadAtStart.toFixed(2)} at start`,
    '',
    '| command | workers | empty data directory, ms (min / median / max) | existing data directory, ms |',
    '| --- | --- | --- | --- |',
    ...lines,
    '',
  ].join('\n'),
);
