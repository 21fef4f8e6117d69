/**
 * Reset of a large AT_RESET board (§5): `--entries N` ranked users in the lower of two leagues,
 * every one assigned, rewards for the top 100, the top 1,000 promoted; times one period reset
 * (archive with rewards, promotion, clearing the entries) on each engine.
 *
 * Standalone: `npx tsx bench/leaderboard-reset.ts [--entries N] [--engines sqlite,postgres]`.
 * Environment: CDS_BENCH_DATABASE_URL (default the test database).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ANTI_CHEAT_DEFAULTS, TOURNAMENT_DEFAULTS } from '../src/core/leaderboards/leaderboard-model.js';
import { LeaderboardResets } from '../src/core/leaderboards/leaderboard-resets.js';
import { MemoryRankCache } from '../src/core/leaderboards/memory-rank-cache.js';
import { periodContaining } from '../src/core/leaderboards/period-schedule.js';
import type { Storage } from '../src/core/ports.js';
import { PostgresStorage, quoteIdent } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { loadBoardEntries } from './datasets.js';

const PROJECT = 1;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function openEngine(
  name: string,
  url: string,
): Promise<{ storage: Storage; assignAll(id: number): Promise<void>; drop(): Promise<void> }> {
  const assign =
    'INSERT INTO leaderboard_assignments (leaderboard_id, user_id, league) SELECT leaderboard_id, user_id, league FROM leaderboard_entries WHERE leaderboard_id = ';
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cds-bench-'));
    const storage = SqliteStorage.open(join(dir, 'bench.sqlite'));
    return {
      storage,
      assignAll: async (id) => {
        storage.db.prepare(`${assign}?`).run(id);
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `cds_bench_${randomBytes(4).toString('hex')}`;
  const storage = await PostgresStorage.open({ connectionString: url, schema, poolSize: 4 });
  return {
    storage,
    assignAll: async (id) => {
      await storage.pool.query(`${assign}$1`, [id]);
      await storage.pool.query('VACUUM ANALYZE leaderboard_assignments');
    },
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    },
  };
}

async function benchReset(engine: string, entries: number, url: string): Promise<void> {
  const { storage, assignAll, drop } = await openEngine(engine, url);
  try {
    const period = periodContaining('daily', Date.now());
    const board = await storage.leaderboards.create(
      PROJECT,
      {
        slug: 'reset',
        name: 'Reset',
        description: '',
        type: 'AT_RESET',
        sort: 'desc',
        operator: 'latest',
        reset: 'daily',
        leagues: [
          { slug: 'global', name: 'Global', order: 0, minStat: null, promoteTop: 1000, demoteBottom: null },
          { slug: 'gold', name: 'Gold', order: 1, minStat: null, promoteTop: null, demoteBottom: 10 },
        ],
        rewards: [{ league: 'global', rankFrom: 1, rankTo: 100, reward: { coins: 10 } }],
        ...ANTI_CHEAT_DEFAULTS,
        ...TOURNAMENT_DEFAULTS,
      },
      period,
    );
    if (board === 'taken') throw new Error('the bench board exists already');
    let started = performance.now();
    await loadBoardEntries(storage, board.id, entries);
    await assignAll(board.id);
    process.stderr.write(
      `${engine}: loaded ${entries} entries in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    const after = (period.end ?? 0) + 1;
    const resets = new LeaderboardResets({
      store: storage.leaderboards,
      boards: { changed: async () => undefined },
      cache: new MemoryRankCache(),
      clock: { now: () => after },
      owner: 'bench',
      leaseMs: 3_600_000,
    });
    started = performance.now();
    const done = await resets.resetBoard(board);
    const seconds = (performance.now() - started) / 1000;
    const archived = await storage.leaderboards.archivedCount(board.id, period.start, 'global');
    const top = await storage.leaderboards.archivedStandings(board.id, period.start, 'global', 0, 1);
    process.stdout.write(
      `${engine}: reset of ${entries} entries ${done ? 'done' : 'NOT DONE'} in ${seconds.toFixed(2)} s (archived ${archived}, first reward ${JSON.stringify(top[0]?.reward)})\n`,
    );
  } finally {
    await storage.close();
    await drop();
  }
}

const engines = (argValue('--engines') ?? 'sqlite,postgres').split(',');
const entries = Number(argValue('--entries') ?? 1_000_000);
const url = process.env.CDS_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
for (const engine of engines) await benchReset(engine, entries, url);
