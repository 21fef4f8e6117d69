/**
 * The SQLite document store's queries (§2, §15): the statements `sqliteQuerySql` compiles, cached
 * by their text, with the rows each one reads counted by `cds_row_seen()`.
 */
import type Database from 'better-sqlite3';
import type { DocumentJson, QueryDocumentsOptions, QueryResult } from '../../core/documents/document-store.js';
import { sqliteQuerySql } from './document-sql.js';
import { registerTimeFunction } from './ttl-sql.js';
import type { SqliteParams } from './where-sql.js';

/** A statement whose only column is a `DocumentJson`, read with `pluck`. */
export type JsonStatement = Database.Statement<[SqliteParams], DocumentJson>;

export function prepareJson(db: Database.Database, sql: string): JsonStatement {
  return db.prepare<SqliteParams, DocumentJson>(sql).pluck(true);
}

// Clause shapes repeat and values are bound, so a few statements serve most queries.
const CACHED_STATEMENTS = 200;

/** Rows a query sorted whole may read; past them it runs again with SQLite's LIMIT, which keeps only the page. */
const WHOLE_SORT_ROWS = 1000;

/** Thrown by `cds_row_seen()` to stop a whole sort that reads more rows than its cap. */
class WholeSortTooLarge extends Error {}

export class SqliteDocumentQueries {
  private readonly statements = new Map<string, JsonStatement>();
  /** Rows visited by the running query; statements run synchronously, one at a time. */
  private rowsSeen = 0;
  /** How many rows the running query may read (a whole sort's cap). */
  private rowCap = Number.POSITIVE_INFINITY;

  constructor(private readonly db: Database.Database) {
    db.function('cds_row_seen', { deterministic: false }, () => {
      if (++this.rowsSeen > this.rowCap) throw new WholeSortTooLarge();
      return 1;
    });
    registerTimeFunction(db);
  }

  /** Runs a query; synchronous, so a caller's transaction holds it together with other reads. */
  run(projectId: number, options: QueryDocumentsOptions): QueryResult {
    const { sql, sortedWhole, params } = sqliteQuerySql(projectId, options);
    this.rowsSeen = 0;
    try {
      const page =
        sortedWhole === undefined ? undefined : this.pageOfWholeSort(this.statement(sortedWhole), params, options);
      // The LIMIT form is prepared only when it runs: no whole sort, or one past its cap.
      return { documents: page ?? this.statement(sql).all(params), rowsScanned: this.rowsSeen };
    } catch (error) {
      // An index dropped after the query was planned: the path indexes still answer it.
      if (!options.index || !/no such index/.test(String(error))) throw error;
      const { index: _dropped, ...unindexed } = options;
      return this.run(projectId, unindexed);
    }
  }

  explain(projectId: number, options: QueryDocumentsOptions): string[] {
    const { sql, params } = sqliteQuerySql(projectId, options);
    const rows = this.db.prepare<SqliteParams, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(params);
    return rows.map((row) => row.detail);
  }

  /** The query's page cut from all its rows sorted by SQLite, or undefined when they are too many. */
  private pageOfWholeSort(
    whole: JsonStatement,
    params: SqliteParams,
    options: QueryDocumentsOptions,
  ): DocumentJson[] | undefined {
    const offset = options.offset ?? 0;
    const end = options.limit === undefined ? Number.POSITIVE_INFINITY : offset + options.limit;
    this.rowCap = Math.max(WHOLE_SORT_ROWS, end);
    try {
      return whole.all(params).slice(offset, end);
    } catch (error) {
      if (error instanceof WholeSortTooLarge) return undefined;
      throw error;
    } finally {
      this.rowCap = Number.POSITIVE_INFINITY;
    }
  }

  private statement(sql: string): JsonStatement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = prepareJson(this.db, sql);
      const oldest = this.statements.keys().next();
      if (this.statements.size >= CACHED_STATEMENTS && !oldest.done) this.statements.delete(oldest.value);
    }
    this.statements.set(sql, statement);
    return statement;
  }
}
