/**
 * The HTTP workloads: what each sends to the service, and the bare baseline each is compared
 * with. Requests spread over the data by a fixed stride, so every run reads the same documents,
 * and no answer can be found by luck: a read picks one of many documents, subtrees, ranges, board
 * offsets or users, never the same one each time (only the top page of the board and the one hub
 * document are fixed: each is the case it names).
 */
import { HUB_PATH, ITEMS, itemPath, roomPath } from './datasets.js';
import type { LoadRequest } from './http-load.js';
import { rangeWorkloads } from './indexed-collections.js';
import { itemData, writeBody } from './payloads.js';
import { BOARD, TOURNAMENT } from './service-process.js';
import type { BenchSettings } from './settings.js';

/** The bare routes of bench/baseline-server.ts. */
export type BaselineName = 'bare GET' | 'bare POST' | 'bare 100-document GET' | 'bare 100-user page GET';

/** A baseline workload. */
export interface BaselineWorkload {
  name: BaselineName;
  expectStatus: number;
  request: (i: number) => LoadRequest;
}

/** A workload against the service. */
export interface HttpWorkload {
  name: string;
  baseline: BaselineName;
  expectStatus: number;
  request: (i: number) => LoadRequest;
  /** Concurrent connections of this workload and of its paired baseline; the run's setting when absent. */
  connections?: number;
}

/**
 * A workload measured in turns with another workload of the service (`reference`, named as in
 * `serviceWorkloads`) instead of a bare baseline: its target is the ratio of the two rates.
 */
export interface PairedWorkload {
  name: string;
  reference: string;
  expectStatus: number;
  request: (i: number) => LoadRequest;
}

/** The baselines, in the order they run. */
export const baselineWorkloads: BaselineWorkload[] = [
  { name: 'bare GET', expectStatus: 200, request: () => ({ method: 'GET', path: '/bare/doc' }) },
  { name: 'bare POST', expectStatus: 200, request: (i) => ({ method: 'POST', path: '/bare/doc', body: writeBody(i) }) },
  { name: 'bare 100-document GET', expectStatus: 200, request: () => ({ method: 'GET', path: '/bare/docs' }) },
  // Not a target's baseline: what answering a leaderboard page of 100 users costs with no other work.
  { name: 'bare 100-user page GET', expectStatus: 200, request: () => ({ method: 'GET', path: '/bare/users' }) },
];

/** Position `i` of a walk that visits 0..n-1 in a scattered order. */
const spread = (i: number, n: number) => (i * 104_729 + 7) % n;

/** Users in a chosen set of the set workload. */
const SET_SIZE = 50;

/** The service workloads, in the order they run (reads before the writes that change the data). */
export function serviceWorkloads(settings: BenchSettings): HttpWorkload[] {
  const docs = settings.documents;
  const rooms = Math.max(1, Math.floor(settings.treeLeaves / settings.subtreeLeaves));
  return [
    {
      name: 'document GET',
      baseline: 'bare GET',
      expectStatus: 200,
      request: (i) => ({ method: 'GET', path: `/documents/docs/${itemPath(spread(i, docs))}` }),
    },
    {
      name: `document GET, collections over ${settings.hubDescendants.toLocaleString('en-US')} descendants`,
      baseline: 'bare GET',
      expectStatus: 200,
      request: () => ({ method: 'GET', path: `/documents/docs/${HUB_PATH}` }),
    },
    {
      name: 'list (limit=100)',
      baseline: 'bare 100-document GET',
      expectStatus: 200,
      request: (i) => ({
        method: 'GET',
        path: `/documents/collections/${ITEMS}?limit=100&start_after=${itemPath(spread(i, docs - 100))}`,
      }),
    },
    ...rangeWorkloads(settings),
    {
      name: `realtime GET, ${settings.subtreeLeaves.toLocaleString('en-US')}-leaf subtree`,
      baseline: 'bare 100-document GET',
      expectStatus: 200,
      request: (i) => ({ method: 'GET', path: `/realtime/db/${roomPath(spread(i, rooms))}` }),
    },
    {
      // The case the kept JSON of a subtree cannot serve: each GET follows a write into its subtree.
      name: `realtime PUT into a ${settings.subtreeLeaves.toLocaleString('en-US')}-leaf subtree, then its GET (alternating)`,
      baseline: 'bare 100-document GET',
      expectStatus: 200,
      request: (i) => {
        const path = `/realtime/db/${roomPath(spread(i >> 1, rooms))}`;
        return i % 2 === 0
          ? { method: 'PUT', path: `${path}/w`, body: JSON.stringify({ value: i }) }
          : { method: 'GET', path };
      },
    },
    {
      name: 'leaderboard me rank',
      baseline: 'bare GET',
      expectStatus: 200,
      // Each request as one of the users (each has an entry), not the connection's own.
      request: (i) => ({
        method: 'GET',
        path: `/leaderboards/${BOARD}/bundle?include=me`,
        user: spread(i, settings.users),
      }),
    },
    {
      name: 'leaderboard users page, offset 0 (limit=100)',
      baseline: 'bare GET',
      expectStatus: 200,
      request: () => ({ method: 'GET', path: `/leaderboards/${BOARD}/users?limit=100` }),
    },
    {
      name: `leaderboard users page, random offset in ${settings.boardEntries.toLocaleString('en-US')} (limit=100)`,
      baseline: 'bare GET',
      expectStatus: 200,
      request: (i) => ({
        method: 'GET',
        path: `/leaderboards/${BOARD}/users?limit=100&offset=${spread(i, settings.boardEntries - 100)}`,
      }),
    },
    {
      name: 'document PUT (upsert)',
      baseline: 'bare POST',
      expectStatus: 200,
      request: (i) => {
        const n = spread(i, docs);
        return { method: 'PUT', path: `/documents/docs/${itemPath(n)}`, body: writeBody(n) };
      },
    },
    {
      name: 'document POST',
      baseline: 'bare POST',
      expectStatus: 201,
      request: (i) => ({ method: 'POST', path: '/documents/collections/posts', body: writeBody(i) }),
    },
    {
      name: 'document PATCH',
      baseline: 'bare POST',
      expectStatus: 200,
      request: (i) => ({
        method: 'PATCH',
        path: `/documents/docs/${itemPath(spread(i, docs))}`,
        body: JSON.stringify({ data: { level: i % 50, seen: i } }),
      }),
    },
    {
      name: 'document PATCH, increment transform (§11)',
      baseline: 'bare POST',
      expectStatus: 200,
      request: (i) => ({
        method: 'PATCH',
        path: `/documents/docs/${itemPath(spread(i, docs))}`,
        body: JSON.stringify({ transforms: { level: { increment: 1 } } }),
      }),
    },
    {
      // Each request writes 50 documents: documents/s is 50 × the request rate.
      name: 'document batch of 50 PUTs (§11; documents/s = 50 × req/s)',
      baseline: 'bare POST',
      expectStatus: 200,
      request: (i) => ({
        method: 'POST',
        path: '/documents/batch',
        body: JSON.stringify({
          writes: Array.from({ length: 50 }, (_, k) => {
            const n = spread(i * 50 + k, docs);
            return { op: 'put', path: itemPath(n), data: itemData(n) };
          }),
        }),
      }),
    },
    // One writer measures a commit's latency; many measure how writes arriving together share commits.
    ...[1, settings.connections].map(
      (writers): HttpWorkload => ({
        name: `realtime PUT, ${writers} writer${writers === 1 ? '' : 's'}`,
        baseline: 'bare POST',
        expectStatus: 200,
        connections: writers,
        request: (i) => ({
          method: 'PUT',
          path: `/realtime/db/players/p${spread(i, 10_000)}`,
          body: JSON.stringify({ value: itemData(i) }),
        }),
      }),
    ),
    {
      name: 'leaderboard stat submission',
      baseline: 'bare POST',
      expectStatus: 200,
      request: (i) => ({
        method: 'POST',
        path: `/leaderboards/${BOARD}/stats`,
        body: JSON.stringify({ value: spread(i, 100_000) }),
      }),
    },
  ];
}

/**
 * §18 against the board of `boardEntries` entries, each in turns with the §5 request of the same
 * cost class: the window around a player and a chosen set against one player's rank, a
 * tournament's submission (join, window and counted limit checked) against a plain one. Reads are
 * sent as varied users (each has an entry), a set names 50 distinct users that change with every
 * request; the tournament's writers are the connections' users, who all joined before the run.
 */
export function pairedWorkloads(settings: BenchSettings): PairedWorkload[] {
  const users = settings.users;
  return [
    {
      name: 'leaderboard around me (radius 5)',
      reference: 'leaderboard me rank',
      expectStatus: 200,
      request: (i) => ({ method: 'GET', path: `/leaderboards/${BOARD}/around?radius=5`, user: spread(i, users) }),
    },
    {
      name: `leaderboard ${SET_SIZE}-user set`,
      reference: 'leaderboard me rank',
      expectStatus: 200,
      request: (i) => ({
        method: 'GET',
        // User ids 1..users, distinct: the walk's stride is prime, so any `users` consecutive positions differ.
        path: `/leaderboards/${BOARD}/users?user_ids=${Array.from({ length: SET_SIZE }, (_, k) => 1 + spread(i * SET_SIZE + k, users)).join(',')}`,
        user: spread(i, users),
      }),
    },
    {
      // §16: a server function returning its input (bench/service-process.ts writes the module).
      name: 'RPC echo',
      reference: 'document GET',
      expectStatus: 200,
      request: (i) => ({ method: 'POST', path: '/functions/echo', body: JSON.stringify({ n: i, tag: 'bench' }) }),
    },
    {
      name: 'tournament stat submission',
      reference: 'leaderboard stat submission',
      expectStatus: 200,
      request: (i) => ({
        method: 'POST',
        path: `/leaderboards/${TOURNAMENT}/stats`,
        body: JSON.stringify({ value: spread(i, 100_000) }),
      }),
    },
  ];
}
