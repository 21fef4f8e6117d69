/** What travels on the bus after the document commits of a turn (§10): plain JSON, so any bus carries it. */

import { originMark } from '../bus.js';
import type { DocumentChangeEntry, DocumentCommitRecord } from '../documents/document-store.js';
import { isJsonObject, parseJsonObject } from '../json.js';

/** A project's commits in version order, as one bus message carries them. */
export interface DocumentCommitEvent {
  projectId: number;
  commits: DocumentCommitRecord[];
}

/** The bus channel of a project's document commits (apart from the tree's `tree.<id>`). */
export function documentChannel(projectId: number): string {
  return `documents.${projectId}`;
}

/**
 * The bus message of a project's commits; `origin` names the publishing instance, whose own feeds
 * had them already (`isOwnMessage`).
 */
export function encodeDocumentCommits(event: DocumentCommitEvent, origin?: string): string {
  const commits = JSON.stringify(event.commits);
  return `${originMark(origin)}"projectId":${event.projectId},"commits":${commits}}`;
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
export function decodeDocumentCommits(message: string): DocumentCommitEvent | null {
  const parsed = parseJsonObject(message);
  if (!parsed || !Number.isSafeInteger(parsed.projectId)) return null;
  const commits = Array.isArray(parsed.commits) ? parsed.commits : [parsed];
  if (!commits.every(isCommit)) return null;
  return { projectId: parsed.projectId as number, commits: commits as unknown as DocumentCommitRecord[] };
}
