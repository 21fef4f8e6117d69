/**
 * The SQLite spelling of §17's expiry (`core/documents/ttl.ts`): a number not after now, or a
 * string that `cds_time_ms` (core's own `isoTimeMs`, registered on the connection) reads as a
 * time not after now. A query of a TTL collection keeps the rows it is false for.
 */
import type Database from 'better-sqlite3';
import { isoTimeMs, type LiveFilter } from '../../core/documents/ttl.js';
import { jsonPath, type SqliteParamList } from './where-sql.js';

/** Registers `cds_time_ms(text)`: the epoch milliseconds of an ISO time in core's form, else NULL. */
export function registerTimeFunction(db: Database.Database): void {
  db.function('cds_time_ms', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? isoTimeMs(text) : null,
  );
}

/** The predicate (0 or 1) that a row's TTL field has not expired at `live.now`. */
export function compileLive(live: LiveFilter, params: SqliteParamList): string {
  const path = params.add(jsonPath(live.field));
  const now = params.add(live.now);
  const value = `json_extract(data, ${path})`;
  return `NOT COALESCE(CASE json_type(data, ${path}) WHEN 'integer' THEN ${value} <= ${now} WHEN 'real' THEN ${value} <= ${now} WHEN 'text' THEN cds_time_ms(${value}) <= ${now} END, 0)`;
}
