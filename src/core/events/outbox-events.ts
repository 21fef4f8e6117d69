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
import type { EventRecord } from './event-recording.js';

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

/**
 * The events of a commit other than documents' and the tree's (those the engines build from their
 * own commit records): core says what they are, the engine builds them only when the commit
 * records events (`record`: always, or when the project has a webhook in its transaction).
 */
export interface CommitEvents {
  projectId: number;
  record: EventRecord;
  time: number;
  events(): NewEvent[];
}

/** What `leaderboards.stat` tells of a stat a submission changed: the value, and the rank and league it has. */
export interface StatEventData {
  slug: string;
  user_id: number;
  value: number;
  rank: number;
  league: string;
}

/** `leaderboards.stat`: one per submission that changed a player's stat. */
export function statEvents(projectId: number, record: EventRecord, time: number, data: StatEventData): CommitEvents {
  return { projectId, record, time, events: () => [newEvent(projectId, 'leaderboards.stat', time, data)] };
}

/** `leaderboards.reset`: a board's period ended (its listings archived); `period` is the one that ended. */
export function resetEvents(
  projectId: number,
  record: EventRecord,
  time: number,
  data: { slug: string; period: { start: string; end: string } },
): CommitEvents {
  return { projectId, record, time, events: () => [newEvent(projectId, 'leaderboards.reset', time, data)] };
}

/** `user.created`: an account was made (sign-up, a first guest login, the admin API). */
export function userCreatedEvents(
  projectId: number,
  record: EventRecord,
  time: number,
  data: { user_id: number; username: string },
): CommitEvents {
  return { projectId, record, time, events: () => [newEvent(projectId, 'user.created', time, data)] };
}
