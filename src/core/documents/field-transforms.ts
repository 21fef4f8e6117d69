/**
 * Field transforms of document writes (§11): `{"transforms": {"stats__level": {"increment": 1}}}`
 * beside `data`. They are checked when the request arrives and applied by the engine inside the
 * write's transaction, to the data as stored at that point, so concurrent increments never lose one.
 */
import { type ValidationIssue, validationFailed } from '../errors.js';
import {
  canonicalJson,
  isJsonObject,
  isUnstorable,
  type JsonObject,
  type JsonValue,
  TOO_DEEP,
  unstorableReason,
} from '../json.js';

/** A transform's operation, as the request names it. */
export type TransformOp =
  | { increment: number }
  | { maximum: number }
  | { minimum: number }
  | { array_union: JsonValue[] }
  | { array_remove: JsonValue[] }
  | 'server_time'
  | 'delete';

/** A checked transform: the field's path segments and its operation. */
export interface FieldTransform {
  field: string;
  segments: string[];
  op: TransformOp;
}

/** How deep data may nest (§0): a transform may not create a field deeper than that. */
const MAX_DEPTH = 64;
const NUMBER_OPS = ['increment', 'maximum', 'minimum'] as const;
const ARRAY_OPS = ['array_union', 'array_remove'] as const;

/** The operation `raw` names, or a reason why it names none. */
function parseOp(raw: unknown): TransformOp | string {
  if (raw === 'server_time' || raw === 'delete') return raw;
  if (!isJsonObject(raw)) return 'Unknown transform: expected "server_time", "delete" or an object with one operation';
  const names = Object.keys(raw);
  const name = names[0];
  if (names.length !== 1 || name === undefined) return 'A transform names exactly one operation';
  const operand = raw[name] as JsonValue;
  if ((NUMBER_OPS as readonly string[]).includes(name)) {
    return typeof operand === 'number' ? ({ [name]: operand } as TransformOp) : `${name} takes a number`;
  }
  if ((ARRAY_OPS as readonly string[]).includes(name)) {
    return Array.isArray(operand) ? ({ [name]: operand } as TransformOp) : `${name} takes an array`;
  }
  return `Unknown transform operation '${name}'`;
}

/**
 * Checks the `transforms` of a write against its `data` keys; 422 with `loc` under `location`
 * (`["body", "transforms"]`, or the batch write's) for an unknown op, a wrong operand, an empty
 * segment, a path too deep, or a path that overlaps a key of `data` or another transform.
 */
export function parseTransforms(
  raw: Record<string, unknown>,
  data: JsonObject | undefined,
  location: (string | number)[] = ['body', 'transforms'],
): FieldTransform[] {
  const issues: ValidationIssue[] = [];
  const transforms: FieldTransform[] = [];
  const dataKeys = new Set(Object.keys(data ?? {}));
  for (const [field, rawOp] of Object.entries(raw)) {
    const loc = [...location, field];
    const segments = field.split('__');
    const op = parseOp(rawOp);
    const operand = typeof op === 'object' ? (Object.values(op)[0] as JsonValue) : null;
    // One iterative walk: an operand nested 100,000 levels deep is refused, never recursed over.
    const unstorable = unstorableReason(operand, Math.max(0, MAX_DEPTH - segments.length));
    if (typeof op === 'string' && op !== 'server_time' && op !== 'delete') {
      issues.push({ loc, msg: op, type: 'value_error' });
    } else if (segments.some((segment) => segment === '')) {
      issues.push({ loc, msg: `Invalid field path '${field}'`, type: 'value_error' });
    } else if (segments.length > MAX_DEPTH || unstorable === TOO_DEEP) {
      issues.push({ loc, msg: `Field path '${field}' nests deeper than ${MAX_DEPTH} levels`, type: 'value_error' });
    } else if (dataKeys.has(field) || dataKeys.has(segments[0] as string)) {
      issues.push({ loc, msg: `Field '${field}' is also set by data`, type: 'value_error' });
    } else if (unstorable !== null || segments.some(isUnstorable)) {
      issues.push({
        loc,
        msg: 'Strings and keys may not contain the NUL character or unpaired surrogates',
        type: 'value_error',
      });
    } else {
      transforms.push({ field, segments, op: op as TransformOp });
    }
  }
  const overlap = findOverlap(transforms);
  if (overlap)
    issues.push({ loc: [...location, overlap], msg: `Transforms of '${overlap}' overlap`, type: 'value_error' });
  if (issues.length > 0) throw validationFailed(issues);
  return transforms;
}

/** A field whose path is another transform's or a prefix of it; undefined when none. */
function findOverlap(transforms: FieldTransform[]): string | undefined {
  const paths = transforms.map((t) => t.segments.join('\u0000'));
  for (const [i, path] of paths.entries()) {
    for (const [j, other] of paths.entries()) {
      if (i !== j && (other === path || other.startsWith(`${path}\u0000`))) return transforms[i]?.field;
    }
  }
  return undefined;
}

/** The commit time as §11 writes `server_time`: ISO 8601 UTC with milliseconds. */
export const serverTimeText = (time: number): string => new Date(time).toISOString();

/** The value the transform leaves at its field, given the value there now (undefined when missing). */
function transformed(op: TransformOp, current: JsonValue | undefined, time: number): JsonValue | undefined {
  if (op === 'server_time') return serverTimeText(time);
  if (op === 'delete') return undefined;
  const number = typeof current === 'number' ? current : undefined;
  if ('increment' in op) return (number ?? 0) + op.increment;
  if ('maximum' in op) return number === undefined ? op.maximum : Math.max(number, op.maximum);
  if ('minimum' in op) return number === undefined ? op.minimum : Math.min(number, op.minimum);
  const array = Array.isArray(current) ? current : [];
  const present = new Set(array.map(canonicalJson));
  if ('array_union' in op) {
    const result = [...array];
    for (const element of op.array_union) {
      const key = canonicalJson(element);
      if (!present.has(key)) {
        present.add(key);
        result.push(element);
      }
    }
    return result;
  }
  const removed = new Set(op.array_remove.map(canonicalJson));
  return array.filter((element) => !removed.has(canonicalJson(element)));
}

/**
 * `data` with every transform applied, in order, at the commit `time`. Missing parents are
 * created as objects, and a parent that holds something else is replaced by one (as a later
 * `data` write would); `data` itself is not modified.
 */
export function applyTransforms(data: JsonObject, transforms: readonly FieldTransform[], time: number): JsonObject {
  const result: JsonObject = { ...data };
  for (const { segments, op } of transforms) {
    if (op === 'delete') {
      deleteField(result, segments);
      continue;
    }
    let parent = result;
    for (const segment of segments.slice(0, -1)) {
      const child = parent[segment];
      const copy: JsonObject = isJsonObject(child) ? { ...child } : {};
      parent[segment] = copy;
      parent = copy;
    }
    const last = segments[segments.length - 1] as string;
    const value = transformed(op, Object.hasOwn(parent, last) ? parent[last] : undefined, time);
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return result;
}

/** Removes the field at `segments` from `root` (copying the objects on the way); nothing when it is missing. */
function deleteField(root: JsonObject, segments: readonly string[]): void {
  let parent = root;
  for (const segment of segments.slice(0, -1)) {
    const child = parent[segment];
    if (!isJsonObject(child)) return;
    const copy = { ...child };
    parent[segment] = copy;
    parent = copy;
  }
  delete parent[segments[segments.length - 1] as string];
}
