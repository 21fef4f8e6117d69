/**
 * What every document query read (§15): the rows counted per collection, and a warning, at most
 * once a minute per project and collection, for a query that read more rows than it returned,
 * naming its clauses so that an admin knows which index to add. Rows skipped by `offset` are
 * read at the client's request, so they count but never warn: no index avoids them.
 */
import type { Clock } from '../clock.js';
import type { WhereClause } from '../where.js';

/** Where the counts and warnings go (the metrics and the log). */
export interface QueryStatsSink {
  rowsScanned(collection: string, rows: number): void;
  warn(details: { projectId: number; collection: string; where: string[]; returned: number; scanned: number }): void;
}

const WARNING_INTERVAL_MS = 60_000;
const MAX_WARNED = 10_000;

/** A clause in the form it was sent (`field__lookup:value`). */
export const clauseText = (clause: WhereClause) => `${clause.field.join('__')}__${clause.lookup}:${clause.text}`;

export class QueryStats {
  /** When each project and collection last warned. */
  private readonly warned = new Map<string, number>();

  constructor(
    private readonly sink: QueryStatsSink,
    private readonly clock: Clock,
  ) {}

  record(
    projectId: number,
    collection: string,
    where: readonly WhereClause[],
    read: { returned: number; skipped: number; scanned: number },
  ): void {
    const { returned, skipped, scanned } = read;
    this.sink.rowsScanned(collection, scanned);
    if (scanned <= returned + skipped) return;
    const key = `${projectId}/${collection}`;
    const now = this.clock.now();
    const last = this.warned.get(key);
    if (last !== undefined && now - last < WARNING_INTERVAL_MS) return;
    if (this.warned.size >= MAX_WARNED) this.warned.clear();
    this.warned.set(key, now);
    this.sink.warn({ projectId, collection, where: where.map(clauseText), returned, scanned });
  }
}
