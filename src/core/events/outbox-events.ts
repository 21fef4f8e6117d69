/**
 * The events of committed changes (§16): what each commit records in the project's outbox, in the
 * same transaction as the change (so a crash never loses one, and a write that did not commit never
 * has one). Core builds each event's JSON here; the engines store it as it is, in commit order per
 * project, and hand it to consumers (after handlers, webhooks) as it is.
 */
import { v7 as timeOrderedUuid } from 'uuid';
import type { DocumentCommitRecord } from '../documents/document-store.js';
import type { JsonValue } from '../json.js';
import type { TreeCommit } from '../realtime/tree-store.js';

/** The types of events, as after handlers and webhooks name them. */
export const EVENT_TYPES = [
  'document.written',
  'realtime.written',
  'leaderboards.stat',
  'leaderboards.reset',
  'user.created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as consumers receive it. */
export interface OutboxEvent<Data = unknown> {
  id: string;
  type: EventType;
  project_id: number;
  /** The commit's time, ISO 8601 UTC. */
  timestamp: string;
  data: Data;
}

/** An event ready to store: its id and type (columns) and its whole JSON text (what consumers get). */
export interface NewEvent {
  id: string;
  type: EventType;
  json: string;
}

/** An event as stored: its place in the project's outbox with it. */
export interface StoredEvent extends NewEvent {
  projectId: number;
  seq: number;
}

/** Builds one event of `projectId` committed at `time` (epoch ms). */
export function newEvent(projectId: number, type: EventType, time: number, data: unknown): NewEvent {
  const id = timeOrderedUuid();
  const event: OutboxEvent = { id, type, project_id: projectId, timestamp: new Date(time).toISOString(), data };
  return { id, type, json: JSON.stringify(event) };
}

/** `document.written`: one per document a commit changed, with its data before and after. */
export function documentEvents(projectId: number, commit: DocumentCommitRecord, time: number): NewEvent[] {
  return commit.changes.map((change) =>
    newEvent(projectId, 'document.written', time, {
      path: change.path,
      id: change.id,
      data: change.data,
      previous: change.previous,
      version: commit.version,
      deleted: change.data === null,
    }),
  );
}

/** What a tree write was, for its `realtime.written` event: a set (or delete) of a path, or a PATCH of its keys. */
export interface TreeWriteEvent {
  path: string;
  patch: boolean;
}

/**
 * `realtime.written`: one per tree write, with the value it left at its path (a PATCH: the object
 * of the keys it set, relative to its path, with their values as committed, server values resolved).
 */
export function treeEvent(projectId: number, write: TreeWriteEvent, commit: TreeCommit, time: number): NewEvent {
  let value: JsonValue;
  if (write.patch) {
    const prefix = write.path === '' ? 0 : write.path.length + 1;
    value = Object.fromEntries(commit.changes.map((change) => [change.path.slice(prefix), change.value]));
  } else {
    value = commit.changes[0]?.value ?? null;
  }
  return newEvent(projectId, 'realtime.written', time, { path: write.path, value, version: commit.version });
}
