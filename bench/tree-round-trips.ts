/**
 * `npx tsx bench/tree-round-trips.ts`: PostgreSQL round trips (queries sent by `pg`) per realtime
 * tree commit, through `TreeService` on a fresh schema: writes one at a time (one commit each) and
 * 50 in one event-loop turn (one shared commit). Not timed, so the figures hold on a busy host.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { InProcessBus } from '../src/bus/in-process-bus.js';
import { TreeService } from '../src/core/realtime/tree-service.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';

const url = process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `cds_bench_rt_${randomBytes(5).toString('hex')}`;

let queries = 0;
const send = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries += 1;
  return (send as (...a: unknown[]) => unknown).apply(this, args);
} as typeof send;

const storage = await PostgresStorage.open({ connectionString: url, schema, poolSize: 4 });
try {
  const tree = new TreeService(storage.tree, new InProcessBus(), {
    retention: { maxWrites: 10_000, maxAgeMs: 600_000 },
  });
  const value = { name: 'p', x: 1, y: 2, hp: 100 };
  const increment = { '.sv': { increment: 1 } };
  for (let i = 0; i < 5; i++) await tree.set(1, `players/p${i}`, value);
  const cases: [string, number, (i: number) => Promise<unknown>, boolean][] = [
    ['PUT', 20, (i) => tree.set(1, `players/p${i}`, value), false],
    ['PUT', 50, (i) => tree.set(1, `players/p${i}`, value), true],
    ['PATCH', 20, (i) => tree.patch(1, `players/p${i}`, { x: i }), false],
    ['PUT with an increment (§11)', 20, () => tree.set(1, 'n', increment), false],
    ['PUT with an increment (§11)', 50, () => tree.set(1, 'n', increment), true],
  ];
  process.stdout.write('| writes | how | round trips | per write |\n|---|---|---:|---:|\n');
  for (const [name, count, write, together] of cases) {
    queries = 0;
    if (together) await Promise.all(Array.from({ length: count }, (_, i) => write(i)));
    else for (let i = 0; i < count; i++) await write(i);
    const how = together ? `${count} in one turn` : `${count}, one after another`;
    process.stdout.write(`| ${name} | ${how} | ${queries} | ${(queries / count).toFixed(2)} |\n`);
  }
} finally {
  await storage.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).finally(() => client.end());
}
