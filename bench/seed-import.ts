/**
 * The seed a new user imports before measuring (issue 39): `documents` documents, a realtime tree
 * of `treeLeaves` leaves and a board of `boardEntries` entries with as many users, as one §8 file
 * loaded into the bench project through the import (`TransferService.importProject`, what `cds
 * import` runs on the file it parsed). Every row of the run is then measured on a database that
 * has been through a real import: its WAL, its change log, its indexes. The seed sits beside the
 * bench's own data (`seed/…` documents, the `seed` tree key, the `seed` board), so no workload
 * reads it; the bench users 1…`users` are users of the seed too, imported as they are.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { PLAYER_ROLE } from '../src/core/auth/player-role.js';
import type { Services } from '../src/services.js';
import { statOf, timeOf } from './datasets.js';
import type { Engine } from './settings.js';

/** What the seed holds. */
export interface SeedSizes {
  documents: number;
  treeLeaves: number;
  subtreeLeaves: number;
  boardEntries: number;
}

/** How the import went. */
export interface SeedImport {
  seconds: number;
  /** SQLite: the WAL file's size once the import returned (MiB); null on PostgreSQL. */
  walMiB: number | null;
}

const SEED_BOARD = 'seed';

/** The §8 file of the seed: every value a function of its position, as the bench's datasets. */
export function seedFile(sizes: SeedSizes): Record<string, unknown> {
  const documents = Array.from({ length: sizes.documents }, (_, i) => ({
    path: `seed/s${String(i).padStart(6, '0')}`,
    data: { n: (i * 7919) % 1000, name: `seed ${i}`, level: i % 50, tags: ['red', 'blue'] },
  }));
  const rooms: Record<string, Record<string, number>> = {};
  for (let x = 0; x < sizes.treeLeaves; x++) {
    const room = `r${String(Math.floor(x / sizes.subtreeLeaves)).padStart(4, '0')}`;
    rooms[room] ??= {};
    rooms[room][`p${String(x % sizes.subtreeLeaves).padStart(4, '0')}`] = x % 1000;
  }
  const users = Array.from({ length: sizes.boardEntries }, (_, i) => ({
    id: i + 1,
    username: `bench_${i + 1}`,
    nickname: `Bench ${i + 1}`,
    avatar_url: null,
    roles: [PLAYER_ROLE],
  }));
  const entries = users.map(({ id }) => ({
    user_id: id,
    stat_value: statOf(id),
    league: 'global',
    updated_at: new Date(timeOf(id)).toISOString(),
  }));
  const board = {
    slug: SEED_BOARD,
    name: 'Seed',
    description: '',
    type: 'CONTINUOUS',
    sort: 'desc',
    operator: 'latest',
    reset: 'none',
    leagues: [{ slug: 'global', name: 'Global', order: 0, min_stat: null, promote_top: null, demote_bottom: null }],
    rewards: [],
    entries,
    assignments: [],
  };
  return {
    format: 'cds-export',
    version: 1,
    documents,
    realtime: { seed: rooms },
    users,
    leaderboards: sizes.boardEntries > 0 ? [board] : [],
  };
}

/** Imports the seed into `projectId` and measures it (the WAL: SQLite's file in `dataDir`). */
export async function importSeed(
  services: Services,
  projectId: number,
  sizes: SeedSizes,
  engine: Engine,
  dataDir: string,
): Promise<SeedImport> {
  const file = seedFile(sizes);
  const started = performance.now();
  await services.transfer.importProject(projectId, file);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, walMiB: engine === 'sqlite' ? walMiB(dataDir) : null };
}

/** The size of the SQLite WAL in `dataDir` (MiB; 0 when there is none). */
export function walMiB(dataDir: string): number {
  const size = statSync(join(dataDir, 'cds.sqlite-wal'), { throwIfNoEntry: false })?.size ?? 0;
  return size / 1_048_576;
}
