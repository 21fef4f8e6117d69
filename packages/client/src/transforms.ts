import { CdsError } from './errors.js';
import type { JsonObject } from './types.js';

/** A §11 field transform standing as a value in `set`/`update` (made by `increment(n)` and the others). */
export class FieldTransform {
  constructor(readonly op: unknown) {}
}

/** Adds `n` to the number at the field (a missing or non-number field counts as 0). */
export const increment = (n: number): FieldTransform => new FieldTransform({ increment: n });
/** Keeps the larger of the field and `n` (a missing or non-number field becomes `n`). */
export const maximum = (n: number): FieldTransform => new FieldTransform({ maximum: n });
/** Keeps the smaller of the field and `n`. */
export const minimum = (n: number): FieldTransform => new FieldTransform({ minimum: n });
/** The commit time, ISO 8601 UTC with milliseconds. */
export const serverTime = (): FieldTransform => new FieldTransform('server_time');
/** Appends each value not already in the array (deep equality). */
export const arrayUnion = (...values: unknown[]): FieldTransform => new FieldTransform({ array_union: values });
/** Removes every element equal to one of the values. */
export const arrayRemove = (...values: unknown[]): FieldTransform => new FieldTransform({ array_remove: values });
/** Removes the field. */
export const deleteField = (): FieldTransform => new FieldTransform('delete');

/** A write's body: `data` without the transforms, and `transforms` keyed by `where`-form field paths. */
export interface WriteBody {
  data?: JsonObject;
  transforms?: Record<string, unknown>;
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof FieldTransform);
}

/** True when `value` is an object holding transforms and nothing else, at any depth. */
function onlyTransforms(value: JsonObject): boolean {
  const values = Object.values(value);
  return (
    values.length > 0 && values.every((v) => v instanceof FieldTransform || (isPlainObject(v) && onlyTransforms(v)))
  );
}

function collect(value: JsonObject, prefix: string, into: Record<string, unknown>): void {
  for (const [key, v] of Object.entries(value)) {
    if (v instanceof FieldTransform) into[prefix + key] = v.op;
    else if (isPlainObject(v)) collect(v, `${prefix + key}__`, into);
  }
}

/**
 * Splits `data` into the §11 body: a transform at the top level, or in a nested object holding
 * only transforms (`{stats: {level: increment(1)}}` → `stats__level`), leaves `data`. A nested
 * object mixing values and transforms is refused: §11 forbids a transform below a key `data` sets.
 */
export function writeBody(data: JsonObject, patch: boolean): WriteBody {
  const plain: JsonObject = {};
  const transforms: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value instanceof FieldTransform) transforms[key] = value.op;
    else if (isPlainObject(value) && onlyTransforms(value)) collect(value, `${key}__`, transforms);
    else if (isPlainObject(value) && JSON.stringify(value) !== JSON.stringify(strip(value)))
      throw new CdsError(
        400,
        `Field '${key}' mixes values and transforms; set them in separate fields`,
        'invalid-argument',
      );
    else plain[key] = value;
  }
  const body: WriteBody = {};
  if (!patch || Object.keys(plain).length > 0 || Object.keys(transforms).length === 0) body.data = plain;
  if (Object.keys(transforms).length > 0) body.transforms = transforms;
  return body;
}

/** `value` with every transform removed (to detect nested ones). */
function strip(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (v instanceof FieldTransform) continue;
    out[key] = isPlainObject(v) ? strip(v) : v;
  }
  return out;
}
