/**
 * `npx tsx bench/tree-commit-lock.ts [--seconds N] [--batch N]`: how long a PostgreSQL tree
 * commit holds its project's version row, without HTTP. Committers (each a pool of its own, as
 * instances are) loop on commits of `--batch` PUTs into one project, one commit in flight each
 * (as `TreeCommits` does), first with the commit of several round trips (`tree-commit.ts`:
 * BEGIN and lock, write, COMMIT), then with the one-statement commit (`tree-commit-at-once.ts`).
 * A project's commits serialize on the row, so with enough committers commits/s approaches
 * 1 / hold time; for the first, the hold is also timed from the lock's answer to COMMIT's.
 * Prints Markdown; fresh schema, dropped after.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { TreeWrite } from '../src/core/realtime/tree-store.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { commitTreeWrites } from '../src/storage/postgres/tree-commit.js';
import { commitTreeWritesAtOnce } from '../src/storage/postgres/tree-commit-at-once.js';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '3' }, batch: { type: 'string', default: '1' } },
});
const seconds = Number(args.seconds);
const batch = Number(args.batch);
const url = process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `cds_bench_lock_${randomBytes(5).toString('hex')}`;
const retention = { maxWrites: 10_000, maxAgeMs: 600_000 };

type Commit = (pool: pg.Pool, writes: TreeWrite[], holds: number[]) => Promise<void>;

/** BEGIN and lock, write, COMMIT: the hold is timed from the lock's answer to COMMIT's. */
const severalRoundTrips: Commit = async (pool, writes, holds) => {
  const client = await pool.connect();
  let locked = 0;
  const timed = {
    query: (...args: Parameters<pg.PoolClient['query']>) => {
      const answer = (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
      if (locked === 0) void answer.then(() => (locked = performance.now()));
      return answer;
    },
  } as unknown as pg.PoolClient;
  try {
    await commitTreeWrites(timed, writes, retention, true);
    await client.query('COMMIT');
    holds.push(performance.now() - locked);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
};

const oneStatement: Commit = async (pool, writes) => {
  await commitTreeWritesAtOnce(pool, writes, retention);
};

const storage = await PostgresStorage.open({ connectionString: url, schema, poolSize: 2 });
const pools = Array.from(
  { length: 4 },
  () => new pg.Pool({ connectionString: url, options: `-c search_path=${quoteIdent(schema)}`, max: 1 }),
);
let counter = 0;
const writesOf = (): TreeWrite[] =>
  Array.from({ length: batch }, () => {
    counter += 1;
    const path = `players/p${counter % 100}`;
    return { projectId: 1, sets: [{ path, value: counter, leaves: [{ path, value: counter }] }], readBack: null };
  });

async function measure(commit: Commit, committers: number) {
  const holds: number[] = [];
  let commits = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    pools.slice(0, committers).map(async (pool) => {
      while (performance.now() < end) {
        await commit(pool, writesOf(), holds);
        commits += 1;
      }
    }),
  );
  holds.sort((a, b) => a - b);
  const median = holds.length > 0 ? (holds[Math.floor(holds.length / 2)] as number).toFixed(2) : '—';
  return { perSecond: commits / seconds, median };
}

try {
  for (const commit of [severalRoundTrips, oneStatement]) await measure(commit, 2); // warm-up
  process.stdout.write(`${batch} PUT(s) per commit, one project, ${seconds} s each\n\n`);
  process.stdout.write('| commit | committers | commits/s | vs 1 committer | lock→COMMIT answer, median ms |\n');
  process.stdout.write('|---|---:|---:|---:|---:|\n');
  for (const [name, commit] of [
    ['BEGIN+lock, write, COMMIT', severalRoundTrips],
    ['one statement (cds_tree_commit)', oneStatement],
  ] as const) {
    let single = 0;
    for (const committers of [1, 2, 4]) {
      const { perSecond, median } = await measure(commit, committers);
      if (committers === 1) single = perSecond;
      const ratio = (perSecond / single).toFixed(2);
      process.stdout.write(`| ${name} | ${committers} | ${perSecond.toFixed(0)} | ${ratio}× | ${median} |\n`);
    }
  }
} finally {
  await Promise.all(pools.map((pool) => pool.end()));
  await storage.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).finally(() => client.end());
}
