/**
 * The events of committed changes (§16): what each commit records in the project's outbox, in the
 * same transaction as the change (so a crash never loses one, and a write that did not commit never
 * has one). Core builds each event's JSON here; the engines store it as it is, in commit order per
 * project, and hand it to consumers (after handlers, webhooks) as it is.
 */
import { randomFillSync } from 'node:crypto';
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
  const id = eventId(time);
  const event: OutboxEvent = { id, type, project_id: projectId, timestamp: isoTime(time), data };
  return { id, type, json: JSON.stringify(event) };
}

// The events of a commit share its time: its ISO form is made once.
let lastTime = Number.NaN;
let lastIso = '';
const isoTime = (time: number): string => {
  if (time !== lastTime) {
    lastIso = new Date(time).toISOString();
    lastTime = time;
  }
  return lastIso;
};

/** Random bytes for event ids, drawn 4 KiB at a time: a call for each id cost more than the rest of its event. */
const pool = Buffer.alloc(4096);
let pooled = 0;
const VARIANT = '89ab';

/**
 * A version 7 UUID (RFC 9562) of `time`: 48 bits of milliseconds, then 74 random bits. Events are
 * told apart by their id and ordered by their `seq`, so ids of one millisecond need no order.
 */
export function eventId(time: number): string {
  if (pooled < 10) {
    randomFillSync(pool);
    pooled = pool.length;
  }
  pooled -= 10;
  const r = pool.toString('hex', pooled, pooled + 10);
  const t = Math.trunc(time).toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${r.slice(0, 3)}-${VARIANT[Number.parseInt(r[3] as string, 16) & 3]}${r.slice(4, 7)}-${r.slice(7, 19)}`;
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
