import type { ValidationIssue } from './errors.js';

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

/** Why a value with NUL or a lone surrogate was refused, for the 422 item. */
export const UNSTORABLE_TEXT = 'Strings and keys may not contain the NUL character or unpaired surrogates';

/** How deep a client value may nest (§0): each object and array is one level, `{}` and `[1]` are 1. */
export const MAX_JSON_DEPTH = 64;

/** Why a value nested too deep was refused, for the 422 item. */
export const TOO_DEEP = `Values may nest at most ${MAX_JSON_DEPTH} levels of objects and arrays`;

/**
 * Why a client value cannot be stored, or null when it can: nested deeper than `maxDepth`, or a
 * string or key holding text PostgreSQL cannot store (the NUL character or a lone UTF-16
 * surrogate; both engines refuse such values, so both accept the same data). The walk keeps its
 * own stack, so a value nested 100,000 levels deep is refused without overflowing the call stack;
 * everything that recurses over client values runs after this check.
 */
export function unstorableReason(value: JsonValue, maxDepth = MAX_JSON_DEPTH): string | null {
  const pending: JsonValue[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const item = pending.pop() as JsonValue;
    const depth = depths.pop() as number;
    if (typeof item === 'string') {
      if (isUnstorable(item)) return UNSTORABLE_TEXT;
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth) return TOO_DEEP;
    if (Array.isArray(item)) {
      for (const child of item) {
        pending.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(item)) {
      if (isUnstorable(key)) return UNSTORABLE_TEXT;
      pending.push(item[key] as JsonValue);
      depths.push(depth + 1);
    }
  }
  return null;
}

/** The 422 problem of a client value at `loc` (`['body', 'data']`), or null when it can be stored. */
export function unstorableIssue(value: JsonValue, loc: (string | number)[]): ValidationIssue | null {
  const reason = unstorableReason(value);
  return reason === null ? null : { loc, msg: reason, type: reason === TOO_DEEP ? 'too_deep' : 'value_error' };
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
