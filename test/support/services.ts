/**
 * The outside services the scale-out suites need: the shared Redis (CDS_TEST_REDIS_URL, default
 * the local one) for multi-instance runs, and the `redis-server` and PostgreSQL binaries for the
 * outage suites, which start their own servers. A missing one skips its suites with a printed
 * reason, or fails them when CDS_TEST_REQUIRE_SERVICES=1 (CI), as `engines.ts` does.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { REQUIRE_SERVICES } from './engines.js';

/** The shared Redis of multi-instance suites. */
export const TEST_REDIS_URL = process.env.CDS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Where the PostgreSQL server binaries are (`initdb`, `pg_ctl`). */
export const PG_BIN_DIR = process.env.CDS_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A skip reason, or a thrown error when services are required. */
function missing(reason: string): string {
  if (REQUIRE_SERVICES) throw new Error(`${reason} (CDS_TEST_REQUIRE_SERVICES=1)`);
  console.warn(`[skip] ${reason}`);
  return reason;
}

/** Null when the shared Redis answers; otherwise why its suites are skipped. */
export async function redisUnavailable(): Promise<string | null> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return missing(`Redis not reachable at ${TEST_REDIS_URL}: ${(error as Error).message}`);
  } finally {
    client.disconnect();
  }
}

/** The path of an executable in `dir`, or on PATH when `dir` is null; null when absent. */
export function findExecutable(name: string, dir: string | null = null): string | null {
  const dirs = dir === null ? (process.env.PATH ?? '').split(delimiter) : [dir];
  for (const each of dirs) {
    const candidate = join(each, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Null when the named binaries exist; otherwise why their suites are skipped. */
export function binariesUnavailable(names: string[], dir: string | null = null): string | null {
  const absent = names.filter((name) => findExecutable(name, dir) === null);
  if (absent.length === 0) return null;
  return missing(`${absent.join(', ')} not found ${dir === null ? 'on PATH' : `in ${dir}`}`);
}

/** A CDS_REDIS_PREFIX unique to this run, so parallel runs sharing one Redis never hear each other. */
export function uniqueRedisPrefix(): string {
  return `cds_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}
