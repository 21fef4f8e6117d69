/**
 * Paths of the realtime tree (§3): normalized slash-separated strings, `''` being the project's
 * root. Stored paths compare in byte order, so a subtree is one contiguous key range.
 */
import { badRequest } from '../errors.js';
import { defaultPathLimits, normalizePath, type PathLimits } from '../paths.js';

/** The root of a project's tree. */
export const ROOT_PATH = '';

/** Normalizes a tree path (§0); the empty path is the root. Rejects NUL, which PostgreSQL cannot store. */
export function parseTreePath(raw: string, limits: PathLimits = defaultPathLimits): string {
  if (raw.includes('\u0000')) throw badRequest('Invalid path segment');
  return normalizePath(raw, limits).join('/');
}

/** Throws the §0 400 when a path built from a written value exceeds the limits. */
export function checkPathLimits(path: string, limits: PathLimits = defaultPathLimits): void {
  if (path.length > limits.maxLength || segmentsOf(path).length > limits.maxSegments) throw badRequest('Path too long');
}

/** The segments of a normalized path; none for the root. */
export function segmentsOf(path: string): string[] {
  return path === ROOT_PATH ? [] : path.split('/');
}

/** `relative` (a normalized path) below `base`. */
export function joinPath(base: string, relative: string): string {
  if (base === ROOT_PATH) return relative;
  if (relative === ROOT_PATH) return base;
  return `${base}/${relative}`;
}

/** True when `path` is `base` or lies below it. */
export function isAtOrBelow(path: string, base: string): boolean {
  return base === ROOT_PATH || path === base || (path.length > base.length && path.startsWith(`${base}/`));
}

/** True when `ancestor` lies strictly above `path`. */
export function isAncestorOf(ancestor: string, path: string): boolean {
  return ancestor !== path && isAtOrBelow(path, ancestor);
}

/** The proper ancestors of `path`, from the root down to its parent (none for the root). */
export function ancestorsOf(path: string): string[] {
  if (path === ROOT_PATH) return [];
  const result = [ROOT_PATH];
  let end = path.indexOf('/');
  while (end !== -1) {
    result.push(path.slice(0, end));
    end = path.indexOf('/', end + 1);
  }
  return result;
}

/** The segments leading from `base` down to `path` (which must be at or below `base`). */
export function relativeSegments(path: string, base: string): string[] {
  if (path === base) return [];
  return segmentsOf(base === ROOT_PATH ? path : path.slice(base.length + 1));
}

/**
 * The key range of the strict descendants of a non-root path: `[P/, P0)`. `'0'` is the byte
 * after `'/'`, so every path starting with `P/` falls inside and nothing else does.
 */
export function descendantRange(path: string): { from: string; to: string } {
  return { from: `${path}/`, to: `${path}0` };
}

/** Why an object key cannot name a child node, or null when it can. */
export function invalidKeyReason(key: string): string | null {
  if (key === '') return 'keys may not be empty';
  if (key === '.' || key === '..') return `keys may not be '.' or '..'`;
  if (key.includes('/')) return `keys may not contain '/'`;
  return null;
}
