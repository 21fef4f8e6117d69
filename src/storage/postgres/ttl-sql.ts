/**
 * The PostgreSQL spelling of §17's expiry (`core/documents/ttl.ts`): a number not after now, or a
 * string that `cds_time_ms` (migration 23, the same form and arithmetic as core's `isoTimeMs`)
 * reads as a time not after now. A query of a TTL collection keeps the rows it is false for.
 */
import type { LiveFilter } from '../../core/documents/ttl.js';
import type { PgParamList } from './where-sql.js';

/** The predicate (TRUE or FALSE) that a row's TTL field has not expired at `live.now`. */
export function compileLive(live: LiveFilter, params: PgParamList): string {
  const value = `(data #> ${params.add(live.field)}::text[])`;
  const now = `${params.add(live.now)}::float8`;
  return `NOT COALESCE(CASE jsonb_typeof(${value}) WHEN 'number' THEN ${value}::float8 <= ${now} WHEN 'string' THEN cds_time_ms(${value} #>> '{}') <= ${now} END, false)`;
}
