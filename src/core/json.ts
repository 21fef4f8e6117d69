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

/** True when a string or key anywhere in `value` holds the NUL character (PostgreSQL cannot store it). */
export function containsNul(value: JsonValue): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (isJsonObject(value))
    return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item));
  return false;
}
