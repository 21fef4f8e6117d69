/**
 * The §10 client messages `listen` and `unlisten`, parsed and checked as REST checks the same
 * parameters (a 400's `detail` is the error; what REST refuses with 422 is `Invalid <parameter>`),
 * and the server's `snapshot`, `changes`, `resume` and `cancel` messages as JSON text.
 */

import type { DocumentRecord } from '../documents/document-store.js';
import { AppError } from '../errors.js';
import type { JsonObject, JsonValue } from '../json.js';
import { type PathLimits, parseCollectionName, parseDocumentPath, parseParentPath } from '../paths.js';
import { type OrderBy, parseOrderBy, parseWhere, type WhereClause } from '../where.js';
import { documentText } from './commit-texts.js';

/** A listener's id: a string or an integer, compared as JSON values (`7` and `"7"` differ). */
export type ListenerId = string | number;

/** What a listener follows: one document, or a query's result. */
export type ListenTarget =
  | { kind: 'document'; path: string; collection: string; parent: string }
  | {
      kind: 'query';
      collection: string;
      /** Only direct children of this document; undefined: at any depth. */
      parent?: string;
      where: WhereClause[];
      orderBy?: OrderBy;
      limit?: number;
    };

/** A checked `listen`. */
export interface ListenRequest {
  id: ListenerId;
  target: ListenTarget;
  since?: number;
}

export const MAX_LISTEN_LIMIT = 1000;

const invalid = (parameter: string) => new AppError('bad_request', `Invalid ${parameter}`);

/** The key of a listener id: `7` and `"7"` differ. */
export function listenerKey(id: ListenerId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/** The `id` of a listen or unlisten; throws `id is required` or `Invalid id`. */
export function parseListenerId(message: JsonObject): ListenerId {
  const id = message.id;
  if (id === undefined || id === null) throw new AppError('bad_request', 'id is required');
  if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) return id;
  throw invalid('id');
}

/** Parses a `listen` message; throws an `AppError` whose message is the `error` event's. */
export function parseListen(message: JsonObject, limits: PathLimits): ListenRequest {
  const id = parseListenerId(message);
  const since = message.since;
  if (since !== undefined && since !== null && (typeof since !== 'number' || !Number.isSafeInteger(since))) {
    throw invalid('since');
  }
  const request = (target: ListenTarget): ListenRequest =>
    typeof since === 'number' ? { id, target, since } : { id, target };
  if (message.doc !== undefined) {
    if (message.collection !== undefined) throw new AppError('bad_request', 'Give either doc or collection');
    if (typeof message.doc !== 'string') throw invalid('doc');
    const path = parseDocumentPath(message.doc, limits);
    return request({ kind: 'document', path: path.path, collection: path.collection, parent: path.parent });
  }
  if (message.collection === undefined) throw new AppError('bad_request', 'doc or collection is required');
  if (typeof message.collection !== 'string') throw invalid('collection');
  const collection = parseCollectionName(message.collection);
  const target: ListenTarget = { kind: 'query', collection, where: parseWhere(stringList(message.where, 'where')) };
  const parent = message.parent_path;
  if (parent !== undefined && parent !== null) {
    if (typeof parent !== 'string') throw invalid('parent_path');
    target.parent = parseParentPath(parent, limits);
  }
  const orderBy = message.order_by;
  if (orderBy !== undefined && orderBy !== null) {
    if (typeof orderBy !== 'string') throw invalid('order_by');
    target.orderBy = parseOrderBy(orderBy);
  }
  const limit = message.limit;
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LISTEN_LIMIT) {
      throw invalid('limit');
    }
    target.limit = limit;
  }
  return request(target);
}

function stringList(value: JsonValue | undefined, parameter: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalid(parameter);
  return value as string[];
}

/** One change of a `changes` message. */
export type ListenerChange =
  | { type: 'added' | 'modified'; document: DocumentRecord }
  | { type: 'removed'; document: { id: string; path: string } };

/** `snapshot`: the listener's result at `version`, in query order. */
export function snapshotMessage(id: ListenerId, version: number, documents: readonly DocumentRecord[]): string {
  return JSON.stringify({ event: 'snapshot', id, version, documents });
}

/**
 * `changes`: what one commit (at `version`) changed in the result: removed, then added, then
 * modified. Each document's text is made once per commit and shared by every listener's message.
 */
export function changesMessage(id: ListenerId, version: number, changes: readonly ListenerChange[]): string {
  const parts = changes.map((change) => `{"type":"${change.type}","document":${documentText(change.document)}}`);
  return `{"event":"changes","id":${JSON.stringify(id)},"version":${version},"changes":[${parts.join(',')}]}`;
}

/** `resume`: the `changes` since `version` follow. */
export function listenerResumeMessage(id: ListenerId, version: number): string {
  return JSON.stringify({ event: 'resume', id, version });
}

/** `cancel`: the rules no longer grant the listener (§9); nothing more follows for it. */
export function listenerCancelMessage(id: ListenerId, message: string): string {
  return JSON.stringify({ event: 'cancel', id, message });
}

/** `ack` of an `unlisten`. */
export function unlistenAckMessage(id: ListenerId): string {
  return JSON.stringify({ event: 'ack', action: 'unlisten', id });
}

/** `error` about a listen or unlisten, with its id when it had a usable one. */
export function listenerErrorMessage(message: string, id: JsonValue | undefined): string {
  const usable = typeof id === 'string' || typeof id === 'number';
  return JSON.stringify(usable ? { event: 'error', message, id } : { event: 'error', message });
}
