/**
 * Runs the `cds` command with only the given settings: as a child process on the bundle
 * cli-bundle.ts builds (`cdsRunner`, for tests of the process: its exit, its output streams), or in
 * this process (`cdsInProcess`: the same program, `runCds` of src/cli/program.ts, without a Node
 * start and a module load per command, about a second of CPU each).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { runCds } from '../../src/cli/program.js';
import { CLI_BUNDLE } from './cli-bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** What a `cds` run printed and how it exited. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one `cds` command line. */
export type CdsRun = (...args: string[]) => Promise<RunResult>;

/** The settings of a run on an SQLite data directory: no DATABASE_URL or JWT secret leaks in from the environment. */
function cdsEnv(dataDir: string, extraEnv: Record<string, string>): Record<string, string | undefined> {
  return {
    ...process.env,
    CDS_DATA_DIR: dataDir,
    DATABASE_URL: '',
    CDS_JWT_SECRET: '',
    CDS_LOG_LEVEL: 'silent',
    ...extraEnv,
  };
}

/** A `cds` runner spawning the bundled command on `dataDir`; `extraEnv` adds settings (REDIS_URL...). */
export function cdsRunner(dataDir: string, extraEnv: Record<string, string> = {}): CdsRun {
  const env = cdsEnv(dataDir, extraEnv);
  return (...args) =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI_BUNDLE, ...args], { cwd: ROOT, env }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
}

/** The run under way in this process: runs take turns, as each holds the process's output streams. */
let turn: Promise<unknown> = Promise.resolve();

/**
 * A `cds` runner calling the command's program in this process on `dataDir`: what it writes to
 * stdout and stderr is captured for the run, and its exit code is the one the process would exit
 * with (a thrown failure's 1, commander's own, or `process.exitCode` a command set).
 */
export function cdsInProcess(dataDir: string, extraEnv: Record<string, string> = {}): CdsRun {
  const env = cdsEnv(dataDir, extraEnv);
  return (...args) => {
    const run = turn.then(() => captured(args, env));
    turn = run.catch(() => undefined);
    return run;
  };
}

async function captured(args: string[], env: Record<string, string | undefined>): Promise<RunResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const streams = [
    { stream: process.stdout, into: stdout, write: process.stdout.write },
    { stream: process.stderr, into: stderr, write: process.stderr.write },
  ];
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  for (const { stream, into } of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const callback = rest.find((item) => typeof item === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    const code = await runCds(['node', 'cds', ...args], env);
    return { code: code || Number(process.exitCode ?? 0), stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    for (const { stream, write } of streams) stream.write = write;
    process.exitCode = exitCode;
  }
}
