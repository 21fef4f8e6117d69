/** What `…/indexes/explain` and `cds query explain` tell of a query (§15), without running it. */
import type { QueryDocumentsOptions } from './document-store.js';
import { type IndexView, indexView } from './indexes.js';
import { clauseText } from './query-stats.js';

export interface QueryExplanation {
  collection: string;
  /** The ready index the query uses; null: none serves it. */
  index: IndexView | null;
  /** The clauses the index seeks on, as sent. */
  sought: string[];
  /** True when the index yields the query's order (no sort). */
  ordered: boolean;
  /** The database's own plan, one line per step. */
  plan: string[];
}

/** The explanation of planned query `options` whose database plan is `plan`. */
export function explanation(options: QueryDocumentsOptions, plan: string[]): QueryExplanation {
  const index = options.index;
  return {
    collection: options.collection,
    index: index ? indexView(index.index) : null,
    sought: index ? index.seeks.flatMap((seek) => seek.clauses.map(clauseText)) : [],
    ordered: index?.ordered ?? false,
    plan,
  };
}
