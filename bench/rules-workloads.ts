/**
 * The cost of access rules (§9): document GET, PUT and a 100-row query against a project under a
 * three-rule owner ruleset, each loaded in turns with the same requests against a project under
 * the open ruleset holding the same documents, so the ratio is the rules' own cost.
 */
import type { Ruleset } from '../src/core/rules/ruleset.js';
import { ITEMS, itemPath, QUERY_THRESHOLD } from './datasets.js';
import type { LoadRequest } from './http-load.js';
import { writeBody } from './payloads.js';

/** What a game would write on day one: own saves, readable items, owner-created posts. */
export const OWNER_RULESET: Ruleset = {
  documents: [
    { match: 'users/{uid}/{rest=**}', allow: { read: 'request.auth.uid == uid', write: 'request.auth.uid == uid' } },
    {
      match: `${ITEMS}/{item}`,
      allow: {
        read: '"player" in request.auth.roles',
        write: '"player" in request.auth.roles && request.resource.data.level < 50',
      },
    },
    { match: 'posts/{post}', allow: { read: 'true', create: 'request.resource.data.owner == request.auth.uid' } },
  ],
  realtime: [],
};

/** The name suffix of the rules rows, and the name of their paired baseline. */
export const UNDER_RULES = 'under a three-rule owner ruleset';
export const OPEN_RULESET_BASELINE = 'the same requests, open ruleset';

/** A workload run against both rules projects. */
export interface RulesWorkload {
  name: string;
  expectStatus: number;
  request: (i: number) => LoadRequest;
}

const spread = (i: number, n: number) => (i * 104_729 + 7) % n;

/** The workloads, over `documents` items of each rules project. */
export function rulesWorkloads(documents: number): RulesWorkload[] {
  return [
    {
      name: `document GET ${UNDER_RULES}`,
      expectStatus: 200,
      request: (i) => ({ method: 'GET', path: `/documents/docs/${itemPath(spread(i, documents))}` }),
    },
    {
      name: `document PUT ${UNDER_RULES}`,
      expectStatus: 200,
      request: (i) => {
        const n = spread(i, documents);
        return { method: 'PUT', path: `/documents/docs/${itemPath(n)}`, body: writeBody(n) };
      },
    },
    {
      name: `query, one range clause (limit=100) ${UNDER_RULES}`,
      expectStatus: 200,
      request: (i) => ({
        method: 'GET',
        path: `/documents/query/${ITEMS}?where=n__gte:${QUERY_THRESHOLD - 50 + (i % 100)}&limit=100`,
      }),
    },
  ];
}
