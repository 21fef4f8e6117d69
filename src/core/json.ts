/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object `text` holds; null when it is not JSON or not an object (a bus message of another kind). */
export function parseJsonObject(text: string): JsonObject | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Why `hasUnstorableText` refused a value, for the 422 item. */
export const UNSTORABLE_TEXT = 'Strings and keys may not contain the NUL character or unpaired surrogates';

/**
 * True when a string or key anywhere in `value` holds text PostgreSQL cannot store: the NUL
 * character or a lone UTF-16 surrogate. Both engines refuse such values, so both accept the same data.
 */
export function hasUnstorableText(value: JsonValue): boolean {
  if (typeof value === 'string') return isUnstorable(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (isJsonObject(value))
    return Object.entries(value).some(([key, item]) => isUnstorable(key) || hasUnstorableText(item));
  return false;
}

/** True for text holding NUL or a lone surrogate. */
export function isUnstorable(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

/**
 * `value` as JSON text with every object's keys sorted by code unit: equal JSON values (by deep
 * equality, `1` and `1.0` alike) give equal text, whatever order their keys came in.
 */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
