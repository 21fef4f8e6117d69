/**
 * The JSON the workloads send and the baselines answer: documents shaped like the service's
 * (about 200 bytes each), so that a baseline does the same parsing and serializing work as the
 * service minus everything else.
 */

/** The `data` of a benchmark document (the shape of the bulk-loaded items). */
export function itemData(i: number): Record<string, unknown> {
  return {
    n: (i * 7919) % 1000,
    name: `item ${i}`,
    level: i % 50,
    active: i % 2 === 0,
    tags: ['red', 'blue'],
    bio: 'A document of the benchmark collection.',
  };
}

/** A document as GET answers it: about 200 bytes of JSON. */
export const FIXED_DOCUMENT = {
  id: '6f1c2f8e-3b9a-4c1d-a2b3-0c9d8e7f6a5b',
  path: 'items/i000123',
  data: itemData(123),
  collections: [] as string[],
};

/** A list or query answer of 100 such documents. */
export const FIXED_DOCUMENT_PAGE = {
  documents: Array.from({ length: 100 }, (_, i) => ({
    id: `6f1c2f8e-3b9a-4c1d-a2b3-${String(i).padStart(12, '0')}`,
    path: `items/i${String(i).padStart(6, '0')}`,
    data: itemData(i),
  })),
};

/** A leaderboard users page as the service answers it: 100 users, about 7 KB of JSON. */
export const FIXED_USERS_PAGE = {
  pagination: { limit: 100, offset: 500_000, total: 1_000_000, has_more: true },
  league: 'global',
  users: Array.from({ length: 100 }, (_, i) => ({
    rank: 500_001 + i,
    user_id: 700_000 + i * 7,
    stat_value: 50_000 - i,
    league: 'global',
  })),
};

/** The body of a write: `{"data": {...}}`, about 130 bytes. */
export const writeBody = (i: number) => JSON.stringify({ data: itemData(i) });
