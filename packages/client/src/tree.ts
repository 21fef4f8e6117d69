/** Local copies of realtime subtrees: paths, and applying a write to a copy as the server does (§3). */

export function normalizePath(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '')
    .join('/');
}

/** `path` relative to `base` ('' when equal), or null when `path` is not at or below `base`. */
export function below(base: string, path: string): string | null {
  if (path === base) return '';
  if (base === '') return path;
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at the relative path `rel` of `value` (null when nothing is there). */
export function valueAt(value: unknown, rel: string): unknown {
  let node = value;
  for (const key of rel === '' ? [] : rel.split('/')) {
    if (!isObject(node)) return null;
    node = node[key] ?? null;
  }
  return node ?? null;
}

/** `value` with the subtree at `rel` replaced by `next` (null or {} delete; emptied objects vanish). */
export function replaceAt(value: unknown, rel: string, next: unknown): unknown {
  const keys = rel === '' ? [] : rel.split('/');
  return replace(value, keys, 0, empty(next) ? null : next);
}

function replace(node: unknown, keys: string[], at: number, next: unknown): unknown {
  const key = keys[at];
  if (key === undefined) return next;
  const copy: Record<string, unknown> = isObject(node) ? { ...node } : {};
  const child = replace(copy[key], keys, at + 1, next);
  if (child === null) delete copy[key];
  else copy[key] = child;
  return Object.keys(copy).length === 0 ? null : copy;
}

function empty(value: unknown): boolean {
  return value === null || value === undefined || (isObject(value) && Object.keys(value).length === 0);
}

/** Deep equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}
