/** What travels on the bus after each commit of a project's documents (§10): plain JSON, so any bus carries it. */

import type { DocumentChangeEntry, DocumentCommitEvent } from '../documents/document-store.js';
import { isJsonObject, parseJsonObject } from '../json.js';

/** The bus channel of a project's document commits (apart from the tree's `tree.<id>`). */
export function documentChannel(projectId: number): string {
  return `documents.${projectId}`;
}

export function encodeDocumentCommit(event: DocumentCommitEvent): string {
  return JSON.stringify(event);
}

const isChange = (value: unknown): value is DocumentChangeEntry =>
  isJsonObject(value) &&
  typeof value.path === 'string' &&
  typeof value.id === 'string' &&
  (value.data === null || isJsonObject(value.data)) &&
  (value.previous === null || isJsonObject(value.previous));

/** The commit a bus message carries; null when it is not one (another version of the service). */
export function decodeDocumentCommit(message: string): DocumentCommitEvent | null {
  const parsed = parseJsonObject(message);
  if (!parsed) return null;
  const { projectId, version, changes } = parsed;
  if (!Number.isSafeInteger(projectId) || !Number.isSafeInteger(version) || !Array.isArray(changes)) return null;
  if (!changes.every(isChange)) return null;
  return {
    projectId: projectId as number,
    version: version as number,
    changes: changes as unknown as DocumentChangeEntry[],
  };
}
