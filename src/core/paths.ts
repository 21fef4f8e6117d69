import { badRequest } from './errors.js';
import { isUnstorable } from './json.js';

/** Limits on paths (§0); configurable. */
export interface PathLimits {
  maxLength: number;
  maxSegments: number;
}

export const defaultPathLimits: PathLimits = { maxLength: 1024, maxSegments: 64 };

/**
 * Normalizes a slash-separated path (§0): strips leading and trailing slashes, collapses
 * empty segments, rejects `.`/`..` segments and paths over the limits.
 */
export function normalizePath(raw: string, limits: PathLimits = defaultPathLimits): string[] {
  const segments = raw.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '.' || s === '..' || isUnstorable(s))) throw badRequest('Invalid path segment');
  if (segments.length > limits.maxSegments || segments.join('/').length > limits.maxLength) {
    throw badRequest('Path too long');
  }
  return segments;
}

/** A document's path split into the parts the store indexes. */
export interface DocumentPath {
  /** Normalized full path, e.g. `users/u1/posts/p1`. */
  path: string;
  /** Path of the parent document, `''` at the root. */
  parent: string;
  /** Second-to-last segment. */
  collection: string;
  /** Last segment. */
  name: string;
}

const DOCUMENT_PATH_MESSAGE = 'Path must point to a document (even number of segments)';
const PARENT_PATH_MESSAGE = 'parent_path must point to a document (even number of segments)';

function toDocumentPath(segments: string[]): DocumentPath {
  const name = segments[segments.length - 1] as string;
  const collection = segments[segments.length - 2] as string;
  return { path: segments.join('/'), parent: segments.slice(0, -2).join('/'), collection, name };
}

/** Parses a document path: non-empty with an even number of segments. */
export function parseDocumentPath(raw: string, limits?: PathLimits): DocumentPath {
  const segments = normalizePath(raw, limits);
  if (segments.length === 0 || segments.length % 2 !== 0) throw badRequest(DOCUMENT_PATH_MESSAGE);
  return toDocumentPath(segments);
}

/** Parses an optional `parent_path`: empty (the root) or a document path. */
export function parseParentPath(raw: string | undefined, limits?: PathLimits): string {
  const segments = normalizePath(raw ?? '', limits);
  if (segments.length % 2 !== 0) throw badRequest(PARENT_PATH_MESSAGE);
  return segments.join('/');
}

/** Parses a collection name given in the URL: exactly one segment. */
export function parseCollectionName(raw: string): string {
  const segments = normalizePath(raw);
  if (segments.length !== 1) throw badRequest('Collection must be a single path segment');
  return segments[0] as string;
}

/** The document path of `{parent}/{collection}/{name}`, checked against the limits. */
export function childDocumentPath(parent: string, collection: string, name: string, limits?: PathLimits): DocumentPath {
  const joined = parent === '' ? `${collection}/${name}` : `${parent}/${collection}/${name}`;
  return parseDocumentPath(joined, limits);
}
