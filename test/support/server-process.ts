/**
 * Runs the real service (`src/main.ts`, bundled once per run by test/support/cli-bundle.ts) as a
 * child process on a free port. Plain Node on the bundle starts in about half the time and CPU of
 * `node --import tsx src/main.ts`, which transpiles every module on each start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_BUNDLE } from './cli-bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** A started server process and everything it printed. */
export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the service with `env` (one process unless CDS_WORKERS says otherwise) and resolves once it listens. */
export function startServerProcess(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  return startService([SERVICE_BUNDLE], env, timeoutMs, LISTENING);
}

/** Starts the bundled service with `workers` worker processes, and resolves once the primary says all listen. */
export function startWorkersProcess(
  workers: number,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ServerProcess> {
  return startService([SERVICE_BUNDLE], { ...env, CDS_WORKERS: String(workers) }, timeoutMs, ALL_WORKERS_LISTENING);
}

const LISTENING = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const ALL_WORKERS_LISTENING = /all \d+ workers listening at (http:\/\/127\.0\.0\.1:\d+)/;

function startService(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  ready: RegExp,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      CDS_LOG_LEVEL: 'info',
      CDS_WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve({
        child,
        baseUrl: match[1],
        output: () => output,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
}

/** The owner admin's login from the first-start line `owner: <email> <password>` (§7); empty strings when absent. */
export function printedOwner(output: string): { email: string; password: string } {
  const line = /^owner: (\S+) (\S+)$/m.exec(output);
  return { email: line?.[1] ?? '', password: line?.[2] ?? '' };
}
