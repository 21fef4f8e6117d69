/**
 * Private Redis and PostgreSQL servers for the outage suites, on free ports in temporary
 * directories, so stopping them never disturbs the shared services (or anyone else's tests).
 * PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { findExecutable, PG_BIN_DIR } from './services.js';

const run = promisify(execFile);

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Retries `check` every 50 ms until it resolves, for at most `timeoutMs`. */
export async function waitUntil(check: () => Promise<unknown>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await check();
      return;
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms: ${(last as Error | undefined)?.message}`);
}

/** A private redis-server that can be stopped and started again on the same port. */
export interface OwnRedis {
  url: string;
  /** Stops the server (SIGKILL: clients see the connection drop, as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is saved). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  destroy(): Promise<void>;
}

/** Starts a redis-server on a free port, without persistence, in a temporary directory. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const binary = findExecutable('redis-server');
  if (!binary) throw new Error('redis-server not found on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'cds-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const ping = async () => {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
    } finally {
      client.disconnect();
    }
  };
  const start = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    child = spawn(binary, args, { stdio: 'ignore' });
    await waitUntil(ping, 10_000, 'redis-server');
  };
  const stop = async () => {
    const current = child;
    child = null;
    if (!current || current.exitCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A private PostgreSQL cluster that can be stopped and started again on the same port. */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
async function pgCommand(name: string, args: string[]): Promise<void> {
  const binary = join(PG_BIN_DIR, name);
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
  await run(file, argv, { timeout: 60_000 });
}

/** `initdb` into a temporary directory and `pg_ctl start` on a free port (fsync off: a test cluster). */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-pg-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await pgCommand('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-N', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await pgCommand('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
    await waitUntil(
      async () => {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
        try {
          await client.connect();
          await client.query('SELECT 1');
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      10_000,
      'PostgreSQL',
    );
  };
  const stop = async () => {
    // Fast: open sessions are terminated at once, as when the database goes away under load.
    await pgCommand('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']).catch(() => undefined);
  };
  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    stop,
    start,
    async destroy() {
      await pgCommand('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
