/** What travels on the bus after each group commit of a project's documents (§10): plain JSON, so any bus carries it. */

import type { DocumentChangeEntry, DocumentCommitEvent, DocumentCommitRecord } from '../documents/document-store.js';
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

const isCommit = (value: unknown): value is DocumentCommitRecord =>
  isJsonObject(value) &&
  Number.isSafeInteger(value.version) &&
  Array.isArray(value.changes) &&
  value.changes.every(isChange);

/**
 * The commits a bus message carries; null when it is not one (another version of the service).
 * An instance from before per-write versions sends one commit as `{projectId, version, changes}`.
 */
export function decodeDocumentCommit(message: string): DocumentCommitEvent | null {
  const parsed = parseJsonObject(message);
  if (!parsed || !Number.isSafeInteger(parsed.projectId)) return null;
  const commits = Array.isArray(parsed.commits) ? parsed.commits : [parsed];
  if (!commits.every(isCommit)) return null;
  return { projectId: parsed.projectId as number, commits: commits as unknown as DocumentCommitRecord[] };
}
