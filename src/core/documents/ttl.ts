/**
 * Expiring documents (§17): what makes a document expired, decided here once. A collection's TTL
 * field holds the document's expiry time, as epoch milliseconds (a JSON number) or as an ISO 8601
 * UTC time string in the one form below; a document whose time is not after now is absent to every
 * read and write, and the sweeper deletes it. Any other value (a boolean, an object, a string of
 * another form) never expires. The engines spell the same rule in SQL (`cds_time_ms`), held to
 * this one by the conformance suite.
 */
import { validationFailed } from '../errors.js';
import type { JsonObject, JsonValue } from '../json.js';
import { fieldValue } from '../listeners/document-matcher.js';

/** A collection's TTL setting: the key path of its expiry field. */
export interface TtlSetting {
  collection: string;
  field: string[];
}

/** A TTL setting as the admin API and §8 show it (`field` in the `where` form, nested with `__`). */
export interface TtlView {
  collection: string;
  field: string;
}

/**
 * What a read keeps of a TTL collection: the documents whose `field` has not expired at `now`.
 * Engines compile it to SQL beside the query's own clauses.
 */
export interface LiveFilter {
  field: string[];
  now: number;
}

export const ttlView = (setting: TtlSetting): TtlView => ({
  collection: setting.collection,
  field: setting.field.join('__'),
});

const MAX_FIELD_LENGTH = 256;

/** Checks a TTL field (the `where` form: non-empty keys joined with `__`); 422 otherwise. */
export function parseTtlField(field: string): string[] {
  const keys = field.split('__');
  if (field.length > MAX_FIELD_LENGTH || keys.some((key) => key.length === 0 || key.includes('\u0000'))) {
    throw validationFailed([
      {
        loc: ['body', 'field'],
        msg: "A field is a key path joined with '__' (non-empty keys, at most 256 characters)",
        type: 'value_error',
      },
    ]);
  }
  return keys;
}

/**
 * The one ISO 8601 form that expires: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1–9 digits
 * (cut to milliseconds), and `Z` or an offset `±HH:MM`; year 0001–9999, a real day of the month,
 * hours 00–23, minutes and seconds 00–59 (`Date.prototype.toISOString()` writes this form).
 */
export const ISO_TIME =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d{1,9}))?(?:Z|([+-])([01]\d|2[0-3]):([0-5]\d))$/;

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (what PostgreSQL's date arithmetic counts). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The epoch milliseconds of an ISO 8601 time in the form `ISO_TIME` names; null for any other string. */
export function isoTimeMs(text: string): number | null {
  const match = ISO_TIME.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year === 0 || day > daysInMonth(year, month)) return null;
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  return (
    daysFromCivil(year, month, day) * DAY_MS +
    Number(h) * 3_600_000 +
    Number(mi) * 60_000 +
    Number(s) * 1000 +
    ms -
    offsetMinutes * 60_000
  );
}

/** The expiry time (epoch ms) a TTL field's value names, or null when the value never expires. */
export function expiryTime(value: JsonValue | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return isoTimeMs(value);
  return null;
}

/** Whether a document with `data` has expired at `now` by its TTL field. */
export function isExpired(data: JsonObject, field: readonly string[], now: number): boolean {
  const time = expiryTime(fieldValue(data, field));
  return time !== null && time <= now;
}

/**
 * The widest offset `ISO_TIME` allows (23:59), in milliseconds: an ISO time expired at `now` reads
 * no later than `now` plus this as text, so the sweep's string range ends there.
 */
export const MAX_OFFSET_MS = (23 * 60 + 59) * 60_000;

/** The collection of a normalized document path: its second-to-last segment. */
export function collectionOf(path: string): string {
  const last = path.lastIndexOf('/');
  return path.slice(path.lastIndexOf('/', last - 1) + 1, last);
}
