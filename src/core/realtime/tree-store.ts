/** The realtime tree port (§3, §4): leaves, commits, snapshots and the change log. */
import type { EventRecord } from '../events/event-recording.js';
import type { TreeWriteEvent } from '../events/outbox-events.js';
import type { JsonValue } from '../json.js';

/** One leaf of the realtime tree: a non-object JSON value stored whole at its path. */
export interface TreeLeaf {
  path: string;
  value: JsonValue;
}

/** One child set of a tree write: the subtree at `path` becomes `value`. */
export interface TreeSet {
  path: string;
  /** The stored form of the value (null deletes): what readers and subscribers see. */
  value: JsonValue;
  /** The flattening of `value`: empty for a delete. */
  leaves: TreeLeaf[];
}

/** What a write did at one path: the new value there (null after a delete). */
export interface TreeChange {
  path: string;
  value: JsonValue;
}

/**
 * Core's part of a tree write decided inside its transaction (§11): the engine reads the values
 * at `reads` after taking the project's version, and applies the sets `resolve` returns in place
 * of the write's own (`resolve` throws to refuse the write: nothing is committed).
 */
export interface TreeWriteHook {
  reads: readonly string[];
  resolve(current: ReadonlyMap<string, JsonValue>, time: number): TreeSet[];
}

/** A committed write: the project version it took and its changes in the order applied. */
export interface TreeCommit {
  version: number;
  changes: TreeChange[];
}

/** One tree write of a batch (§3): its sets, applied at the project's next version. */
export interface TreeWrite {
  projectId: number;
  sets: TreeSet[];
  /** Decides the sets inside the commit (§11); throwing refuses this write alone. */
  hook?: TreeWriteHook;
  /** A path whose value as this write leaves it the outcome reports (a PATCH's merged value). */
  readBack: string | null;
  /**
   * When set, the commit records the write's `realtime.written` event in the outbox (§16), in its
   * transaction: always (`record` absent or `always`), or when the project has a webhook.
   */
  event?: TreeWriteEvent & { record?: EventRecord };
  /**
   * The id of the on-disconnect op this write runs (§17): the engine deletes the op's row in the
   * write's transaction and refuses the write alone (`DisconnectOpGone`) when the row is gone, so
   * an op runs once whichever instance runs it.
   */
  consumes?: string;
}

/** How one write of a batch ended: committed at its own version, or refused alone. */
export type TreeWriteOutcome = { ok: true; commit: TreeCommit & { value: JsonValue } } | { ok: false; error: unknown };

/** A subtree and the project version it reflects, read in one transaction. */
export interface TreeSnapshot {
  value: JsonValue;
  version: number;
}

/** A subtree's leaves in `packLeaves`' format and the project version they reflect, read at once. */
export interface PackedSubtree {
  packed: Uint8Array;
  version: number;
}

/** The paths the commits after some version changed, and the current version. */
export interface ChangedPaths {
  version: number;
  paths: string[];
}

/**
 * Whether a project's change log, holding the commits after `logFloor` up to `version`, answers
 * "what changed since `since`" with at most `maxCommits` commits: the one rule behind the engines'
 * `changesSince` and `changedPathsSince` answering null.
 */
export function logCovers(
  since: number,
  version: number,
  logFloor: number,
  maxCommits = Number.POSITIVE_INFINITY,
): boolean {
  return since >= logFloor && since <= version && version - since <= maxCommits;
}

/**
 * The floor the count bound of a change log asks for after a commit at `version`: the log keeps
 * at least the last `maxWrites` writes, and drops the older ones a sixteenth of `maxWrites` at a
 * time. Deleting the oldest rows at every commit would rewrite the log's first pages in every
 * commit (a tenth of a document write's cost with 10,000 writes kept); in chunks, once in
 * hundreds of commits. With fewer than 32 writes kept, every commit trims.
 */
export function countFloor(version: number, floor: number, maxWrites: number): number {
  const wanted = version - maxWrites;
  return wanted - floor >= Math.max(1, Math.floor(maxWrites / 16)) ? wanted : floor;
}

/** The commits after some version (those with changes, in order) and the current version. */
export interface TreeHistory {
  version: number;
  commits: TreeCommit[];
}

/** How much change log a write keeps: the last `maxWrites` commits, none older than `maxAgeMs`. */
export interface ChangeLogRetention {
  maxWrites: number;
  maxAgeMs: number;
}

/**
 * The realtime tree of every project (§3): one row per leaf keyed by its path, a version
 * counter per project and a bounded change log (§4). Each write takes the project's next version
 * (consecutive; concurrent writes of a project are serialized), applies its sets, appends them to
 * the log and trims the log to `retention`; `commit` does this for many writes in one transaction.
 */
export interface TreeStore {
  /**
   * Replaces the subtree at `set.path`; when it has leaves, ancestors holding a leaf become objects.
   * Each write takes an optional `hook` (§11) run inside its transaction.
   */
  set(projectId: number, set: TreeSet, retention: ChangeLogRetention, hook?: TreeWriteHook): Promise<TreeCommit>;
  /** Applies child sets (no path a prefix of another) at once; also returns the merged value at `path`. */
  patch(
    projectId: number,
    path: string,
    sets: TreeSet[],
    retention: ChangeLogRetention,
    hook?: TreeWriteHook,
  ): Promise<TreeCommit & { value: JsonValue }>;
  /** Deletes the subtree at `path` (a commit even when nothing was there). */
  delete(projectId: number, path: string, retention: ChangeLogRetention, hook?: TreeWriteHook): Promise<TreeCommit>;
  /**
   * Commits `writes` in one transaction, in order, each as if it ran alone: a project's writes take
   * its next versions (consecutive, in the order given), a hook sees the writes before it, and a
   * refused write is left out alone. Rejects only when nothing was written (a failed statement).
   */
  commit(writes: readonly TreeWrite[], retention: ChangeLogRetention): Promise<TreeWriteOutcome[]>;
  /** The assembled value at `path` with the version it reflects. */
  snapshot(projectId: number, path: string): Promise<TreeSnapshot>;
  /**
   * The leaves at or below `path` as their stored JSON text, in `packLeaves`' format (empty when
   * none), and the version they reflect, read at once: a large GET writes its JSON from them
   * without parsing. In path order when the engine can (core writes that order in one pass, and
   * sorts any other).
   */
  packedLeaves(projectId: number, path: string): Promise<PackedSubtree>;
  /** The names of the children of `path` when it is an object; its value when a leaf; else none. */
  children(projectId: number, path: string): Promise<{ leaf: JsonValue; keys: string[] }>;
  /** The project's current version: 0 before its first write. */
  currentVersion(projectId: number): Promise<number>;
  /**
   * The paths changed by the commits after `version` (in any order, repeats kept), read at once
   * with the current version; null when the log no longer covers them, `version` is not in
   * 0..current, or they are more than `maxCommits` commits.
   */
  changedPathsSince(projectId: number, version: number, maxCommits: number): Promise<ChangedPaths | null>;
  /** Every commit after `version`, or null when the log no longer covers them (or `version` is not in 0..current). */
  changesSince(projectId: number, version: number): Promise<TreeHistory | null>;
}

/**
 * What both engines' tree stores share: `set`, `patch` and `delete`, each one `TreeWrite`
 * committed alone by the engine's `writeAlone`.
 */
export abstract class TreeStoreBase {
  /** Commits `write` alone; rejects with its refusal (a hook's, §11) or the failure. */
  protected abstract writeAlone(
    write: TreeWrite,
    retention: ChangeLogRetention,
  ): Promise<TreeCommit & { value: JsonValue }>;

  readonly set: TreeStore['set'] = async (projectId, set, retention, hook) =>
    commitOf(await this.writeAlone(alone(projectId, [set], null, hook), retention));

  readonly patch: TreeStore['patch'] = (projectId, path, sets, retention, hook) =>
    this.writeAlone(alone(projectId, sets, path, hook), retention);

  readonly delete: TreeStore['delete'] = async (projectId, path, retention, hook) =>
    commitOf(await this.writeAlone(alone(projectId, [{ path, value: null, leaves: [] }], null, hook), retention));
}

function alone(projectId: number, sets: TreeSet[], readBack: string | null, hook?: TreeWriteHook): TreeWrite {
  return { projectId, sets, readBack, ...(hook ? { hook } : {}) };
}

function commitOf({ version, changes }: TreeCommit): TreeCommit {
  return { version, changes };
}
