/**
 * The single-document writes of the `DocumentStore` port (`upsert`, `merge`, `delete`), written
 * once over its `apply`, so every engine's writes take a version the same way.
 */
import { AppError } from '../errors.js';
import type { JsonObject } from '../json.js';
import { parseDocumentPath } from '../paths.js';
import type { AppliedMutation, DocumentRecord, DocumentStore } from './document-store.js';
import { deleteMutation, patchMutation } from './document-writes.js';

/** The written document of an applied mutation. */
export function writtenOf(applied: AppliedMutation | undefined): Extract<AppliedMutation, { kind: 'written' }> {
  if (applied?.kind !== 'written') throw new Error('The store did not write the document');
  return applied;
}

const isNotFound = (error: unknown) => error instanceof AppError && error.code === 'not_found';

/** `DocumentStore.merge` over `apply`: null when the document does not exist. */
export async function mergeThrough(
  store: Pick<DocumentStore, 'apply'>,
  projectId: number,
  path: string,
  patch: JsonObject,
): Promise<DocumentRecord | null> {
  try {
    const [applied] = await store.apply(projectId, [patchMutation(parseDocumentPath(path), patch)]);
    const { id, data } = writtenOf(applied);
    return { id, path, data };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** `DocumentStore.delete` over `apply`: false when the document did not exist. */
export async function deleteThrough(store: Pick<DocumentStore, 'apply'>, projectId: number, path: string) {
  try {
    await store.apply(projectId, [deleteMutation(parseDocumentPath(path))]);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
