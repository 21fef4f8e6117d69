/**
 * Single-document writes over `DocumentStore.apply` for storage tests: what the service's
 * PUT, POST, PATCH and DELETE hand the store, without the service around them.
 */
import { randomUUID } from 'node:crypto';
import type { DocumentRecord, DocumentStore } from '../../src/core/documents/document-store.js';
import {
  deleteMutation,
  insertMutation,
  patchMutation,
  putMutation,
} from '../../src/core/documents/document-writes.js';
import { AppError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { type DocumentPath, parseDocumentPath } from '../../src/core/paths.js';

type Writer = Pick<DocumentStore, 'apply'>;

const isNotFound = (error: unknown) => error instanceof AppError && error.code === 'not_found';

/** Inserts or replaces the document at `path`; `created` tells which happened. */
export async function upsert(store: Writer, projectId: number, path: DocumentPath, data: JsonObject) {
  const { applied } = await store.apply(projectId, [putMutation(path, data, randomUUID())]);
  const written = applied[0];
  if (written?.kind !== 'written') throw new Error('not written');
  return { id: written.id, path: path.path, data: written.data, created: written.created };
}

/** Inserts a new document with the given id (409 when the path is taken). */
export async function insert(
  store: Writer,
  projectId: number,
  path: DocumentPath,
  id: string,
  data: JsonObject,
): Promise<DocumentRecord> {
  await store.apply(projectId, [insertMutation(path, data, id)]);
  return { id, path: path.path, data };
}

/** Shallow-merges `patch` into the stored data; null when the document does not exist. */
export async function merge(
  store: Writer,
  projectId: number,
  path: string,
  patch: JsonObject,
): Promise<DocumentRecord | null> {
  try {
    const { applied } = await store.apply(projectId, [patchMutation(parseDocumentPath(path), patch)]);
    const written = applied[0];
    return written?.kind === 'written' ? { id: written.id, path, data: written.data } : null;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** Deletes only that document; false when it did not exist. */
export async function remove(store: Writer, projectId: number, path: string): Promise<boolean> {
  try {
    await store.apply(projectId, [deleteMutation(parseDocumentPath(path))]);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
