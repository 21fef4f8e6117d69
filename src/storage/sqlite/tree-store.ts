import type Database from 'better-sqlite3';
import { treeEvent } from '../../core/events/outbox-events.js';
import type { JsonValue } from '../../core/json.js';
import { DisconnectOpGone } from '../../core/realtime/disconnect-op-store.js';
import { batchOutcomes, planTreeBatch, readsNothing } from '../../core/realtime/tree-batch.js';
import { ancestorsOf, descendantRange, ROOT_PATH } from '../../core/realtime/tree-path.js';
import {
  type ChangedPaths,
  type ChangeLogRetention,
  logCovers,
  type PackedSubtree,
  type TreeChange,
  type TreeCommit,
  type TreeHistory,
  type TreeLeaf,
  type TreeSet,
  type TreeSnapshot,
  type TreeStore,
  TreeStoreBase,
  type TreeWrite,
  type TreeWriteHook,
  type TreeWriteOutcome,
} from '../../core/realtime/tree-store.js';
import { assembleValue, serializedChange } from '../../core/realtime/tree-value.js';
import type { SqliteEventStore } from './event-store.js';

interface LeafRow {
  path: string;
  value: string;
}

interface VersionRow {
  version: number;
  log_floor: number;
}

interface ChangeRow {
  version: number;
  path: string;
  value: string;
}

const SQL = {
  moveVersion: `INSERT INTO tree_versions (project_id, version, log_floor) VALUES (?, ?, 0)
    ON CONFLICT (project_id) DO UPDATE SET version = version + excluded.version RETURNING version, log_floor`,
  readVersion: 'SELECT version, log_floor FROM tree_versions WHERE project_id = ?',
  setFloor: 'UPDATE tree_versions SET log_floor = ? WHERE project_id = ?',
  deleteAt: 'DELETE FROM tree_leaves WHERE project_id = ? AND path = ?',
  deleteRange: 'DELETE FROM tree_leaves WHERE project_id = ? AND path >= ? AND path < ?',
  deleteAll: 'DELETE FROM tree_leaves WHERE project_id = ?',
  insertLeaf: 'INSERT INTO tree_leaves (project_id, path, value) VALUES (?, ?, ?)',
  leafAt: 'SELECT path, value FROM tree_leaves WHERE project_id = ? AND path = ?',
  leavesInRange: 'SELECT path, value FROM tree_leaves WHERE project_id = ? AND path >= ? AND path < ?',
  allLeaves: 'SELECT path, value FROM tree_leaves WHERE project_id = ?',
  // A subtree's leaves packed for core (`packLeaves`' format) as one blob: one buffer crosses into
  // JavaScript instead of a row object per leaf, which costs more than the read. In the primary
  // key's order as it is scanned, which core writes fastest (it does not depend on it). NUL is
  // the literal x'00', not char(0): a function call per leaf is 5 % of the read.
  packedAt: `SELECT CAST(path || x'00' || value AS BLOB) FROM tree_leaves WHERE project_id = ? AND path = ?`,
  // With the project's version, read by the same statement (one statement sees one state); the
  // project id is bound twice.
  packedInRange: `SELECT CAST(group_concat(path || x'00' || value, x'00') AS BLOB),
    (SELECT version FROM tree_versions WHERE project_id = ?) FROM tree_leaves
    WHERE project_id = ? AND path >= ? AND path < ?`,
  packedAll: `SELECT CAST(group_concat(path || x'00' || value, x'00') AS BLOB),
    (SELECT version FROM tree_versions WHERE project_id = ?) FROM tree_leaves WHERE project_id = ?`,
  firstPathAfter: `SELECT path FROM tree_leaves WHERE project_id = ? AND path >= ? AND path < ?
    ORDER BY path LIMIT 1`,
  firstPathAfterOpen: 'SELECT path FROM tree_leaves WHERE project_id = ? AND path >= ? ORDER BY path LIMIT 1',
  consumeOp: 'DELETE FROM disconnect_ops WHERE id = ?',
  insertChange: `INSERT INTO tree_changes (project_id, version, seq, path, value, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`,
  trimChanges: 'DELETE FROM tree_changes WHERE project_id = ? AND version > ? AND version <= ?',
  firstFreshChange: `SELECT version FROM tree_changes WHERE project_id = ? AND version > ? AND created_at >= ?
    ORDER BY version, seq LIMIT 1`,
  changesAfter:
    'SELECT version, path, value FROM tree_changes WHERE project_id = ? AND version > ? ORDER BY version, seq',
  // One statement, so the version and the paths are of one state (no transaction to pay for). The
  // commits read are bounded by version: a bound LIMIT in the subquery cost 5 times the statement.
  pathsChangedAfter: `SELECT version, log_floor, (SELECT group_concat(path, x'00') FROM tree_changes
      WHERE project_id = ? AND version > ? AND version <= ?) AS paths
    FROM tree_versions WHERE project_id = ?`,
};

type Statements = { [K in keyof typeof SQL]: Database.Statement };

// The statement answering one packed text: the value of its only column, not a row object.
const PLUCKED: readonly (keyof typeof SQL)[] = ['packedAt'];
// The packed texts read with their version: `[packed, version]`, not a row object.
const RAW: readonly (keyof typeof SQL)[] = ['packedInRange', 'packedAll'];

type PackedRow = [Buffer | null, number | null];

type BatchTransaction = (writes: readonly TreeWrite[], retention: ChangeLogRetention) => TreeWriteOutcome[];

/** The realtime tree on SQLite: one row per leaf, a version row per project, a change log. */
export class SqliteTreeStore extends TreeStoreBase implements TreeStore {
  private readonly statements: Statements;
  private readonly writeTransaction: (
    write: TreeWrite,
    retention: ChangeLogRetention,
  ) => TreeCommit & { value: JsonValue };

  private readonly batchTransaction: BatchTransaction;
  private readonly netEffectTransaction: BatchTransaction;

  constructor(
    private readonly db: Database.Database,
    private readonly events: SqliteEventStore,
  ) {
    super();
    this.statements = Object.fromEntries(
      Object.entries(SQL).map(([name, sql]) => {
        const statement = db.prepare(sql);
        const key = name as keyof typeof SQL;
        return [name, PLUCKED.includes(key) ? statement.pluck() : RAW.includes(key) ? statement.raw() : statement];
      }),
    ) as Statements;
    const write = db.transaction(this.applyWrite.bind(this));
    const writeAndRecord = db.transaction((w: TreeWrite, retention: ChangeLogRetention) => {
      this.consume(w);
      return this.recorded(w, write(w.projectId, w.sets, retention, w.readBack, w.hook));
    });
    // IMMEDIATE takes the write lock up front, so two processes never both read the old version.
    this.writeTransaction = (w, retention) => writeAndRecord.immediate(w, retention);
    // Nested in the batch's transaction, each write runs in a savepoint: a refused one is undone alone.
    const batch = db.transaction((writes: readonly TreeWrite[], retention: ChangeLogRetention) =>
      writes.map((w): TreeWriteOutcome => {
        try {
          this.consume(w);
          return { ok: true, commit: this.recorded(w, write(w.projectId, w.sets, retention, w.readBack, w.hook)) };
        } catch (error) {
          // A failure that ended the transaction (I/O) fails the batch: nothing of it is written.
          if (!db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
    this.batchTransaction = (...args) => batch.immediate(...args);
    const netEffect = db.transaction((writes: readonly TreeWrite[], retention: ChangeLogRetention) => {
      const outcomes = this.storeNetEffect(writes, retention);
      outcomes.forEach((outcome, i) => {
        const w = writes[i] as TreeWrite;
        if (outcome.ok) this.recorded(w, outcome.commit);
      });
      return outcomes;
    });
    this.netEffectTransaction = (...args) => netEffect.immediate(...args);
  }

  /** One immediate transaction for the batch (one WAL sync), each write at its project's next version. */
  async commit(writes: readonly TreeWrite[], retention: ChangeLogRetention): Promise<TreeWriteOutcome[]> {
    if (readsNothing(writes)) return this.netEffectTransaction(writes, retention);
    return this.batchTransaction(writes, retention);
  }

  protected async writeAlone(
    write: TreeWrite,
    retention: ChangeLogRetention,
  ): Promise<TreeCommit & { value: JsonValue }> {
    return this.writeTransaction(write, retention);
  }

  /** Deletes the row of the on-disconnect op the write runs (§17); a row already gone refuses the write. */
  private consume(write: TreeWrite): void {
    if (write.consumes === undefined) return;
    if (this.statements.consumeOp.run(write.consumes).changes === 0) throw new DisconnectOpGone(write.consumes);
  }

  /** Records the write's `realtime.written` event when it asks for one (inside its transaction). */
  private recorded<C extends TreeCommit>(write: TreeWrite, commit: C): C {
    if (write.event && this.events.records(write.projectId, write.event.record ?? 'always')) {
      const now = Date.now();
      this.events.append(write.projectId, [treeEvent(write.projectId, write.event, commit, now)], now);
    }
    return commit;
  }

  async snapshot(projectId: number, path: string): Promise<TreeSnapshot> {
    // A deferred transaction: both reads see the same database state.
    return this.db.transaction(() => ({
      version: this.readVersion(projectId).version,
      value: this.readValue(projectId, path),
    }))();
  }

  async packedLeaves(projectId: number, path: string): Promise<PackedSubtree> {
    const { packedAt, packedInRange, packedAll } = this.statements;
    if (path === ROOT_PATH) return packedSubtree(packedAll.get(projectId, projectId) as PackedRow);
    // One statement sees one state, and a path holding leaves below it holds no leaf itself: a
    // subtree needs no transaction. Only when there is none are the reads made in one.
    const { from, to } = descendantRange(path);
    const below = packedInRange.get(projectId, projectId, from, to) as PackedRow;
    if (below[0]) return packedSubtree(below);
    return this.db.transaction(() => {
      const leaf = packedAt.get(projectId, path) as Buffer | undefined;
      if (leaf) return { packed: leaf, version: this.readVersion(projectId).version };
      return packedSubtree(packedInRange.get(projectId, projectId, from, to) as PackedRow);
    })();
  }

  async children(projectId: number, path: string): Promise<{ leaf: JsonValue; keys: string[] }> {
    return this.db.transaction(() => {
      const leaf = this.statements.leafAt.get(projectId, path) as LeafRow | undefined;
      if (leaf) return { leaf: JSON.parse(leaf.value) as JsonValue, keys: [] };
      return { leaf: null, keys: this.childKeys(projectId, path) };
    })();
  }

  async currentVersion(projectId: number): Promise<number> {
    return this.readVersion(projectId).version;
  }

  async changedPathsSince(projectId: number, since: number, maxCommits: number): Promise<ChangedPaths | null> {
    const row = this.statements.pathsChangedAfter.get(projectId, since, since + maxCommits, projectId) as
      | (VersionRow & { paths: string | null })
      | undefined;
    const { version, log_floor } = row ?? { version: 0, log_floor: 0 };
    if (!logCovers(since, version, log_floor, maxCommits)) return null;
    // NULL when no commit; '' is the root's path.
    return { version, paths: row && row.paths !== null ? row.paths.split('\u0000') : [] };
  }

  async changesSince(projectId: number, since: number): Promise<TreeHistory | null> {
    return this.db.transaction(() => {
      const { version, log_floor } = this.readVersion(projectId);
      if (!logCovers(since, version, log_floor)) return null;
      const rows = this.statements.changesAfter.all(projectId, since) as ChangeRow[];
      return { version, commits: groupCommits(rows) };
    })();
  }

  /**
   * One commit of `sets` inside the caller's transaction (an import, §8); returns its version. It
   * is not kept in the change log, whose floor moves to it: a subscriber resuming from before the
   * import gets a snapshot. Logged, an import is one entry holding the whole tree, and each later
   * commit's trim, seeking the log's first entry, would read all of it (SQLite reads an index
   * cell's whole payload, overflow pages included) until that entry is trimmed.
   */
  commitInTransaction(projectId: number, sets: TreeSet[], retention: ChangeLogRetention): TreeCommit {
    const { version, changes } = this.applyWrite(projectId, sets, retention, null, undefined, false);
    const { log_floor } = this.readVersion(projectId);
    this.statements.trimChanges.run(projectId, log_floor, version);
    this.statements.setFloor.run(version, projectId);
    return { version, changes };
  }

  /**
   * Writes that read nothing, stored as their net effect (`planTreeBatch`): each project's version
   * moved once, its leaves deleted and inserted once, one trim of its log. Nothing in them can be
   * refused alone, so they need no savepoint each.
   */
  private storeNetEffect(writes: readonly TreeWrite[], retention: ChangeLogRetention): TreeWriteOutcome[] {
    const plan = planTreeBatch(writes);
    const now = Date.now();
    const { moveVersion, deleteAll, deleteAt, insertLeaf, insertChange } = this.statements;
    const moved = new Map<number, VersionRow>();
    const bases = new Map<number, number>();
    for (const { projectId, overlay, writes: count } of plan.projects) {
      const row = moveVersion.get(projectId, count) as VersionRow;
      moved.set(projectId, row);
      bases.set(projectId, row.version - count);
      const { all, points, subtrees } = overlay.deletions;
      if (all) deleteAll.run(projectId);
      for (const path of points) deleteAt.run(projectId, path);
      for (const path of subtrees) this.deleteSubtree(projectId, path);
      for (const leaf of overlay.insertions) insertLeaf.run(projectId, leaf.path, JSON.stringify(leaf.value));
    }
    for (const change of plan.changes) {
      const version = (bases.get(change.projectId) ?? 0) + change.offset;
      insertChange.run(change.projectId, version, change.seq, change.path, change.json, now);
    }
    for (const [projectId, { version, log_floor }] of moved)
      this.trimLog(projectId, version, log_floor, retention, now);
    return batchOutcomes(writes, plan, bases);
  }

  private applyWrite(
    projectId: number,
    written: TreeSet[],
    retention: ChangeLogRetention,
    readBack: string | null,
    hook?: TreeWriteHook,
    logged = true,
  ): TreeCommit & { value: JsonValue } {
    const { version, log_floor } = this.statements.moveVersion.get(projectId, 1) as VersionRow;
    const now = Date.now();
    // The version row is taken: nothing changes the values the hook reads until this commits.
    const sets = hook
      ? hook.resolve(new Map(hook.reads.map((path) => [path, this.readValue(projectId, path)])), now)
      : written;
    const changes = sets.map((set, seq): TreeChange => {
      if (set.leaves.length > 0) {
        // Ancestors holding a leaf become objects: one point lookup per ancestor.
        for (const ancestor of ancestorsOf(set.path)) this.statements.deleteAt.run(projectId, ancestor);
      }
      this.deleteSubtree(projectId, set.path);
      // Serialized once: the log row, the leaf when the value is one, and the broadcast (`changeJson`).
      const json = JSON.stringify(set.value);
      for (const leaf of set.leaves) {
        const text = leaf.value === set.value ? json : JSON.stringify(leaf.value);
        this.statements.insertLeaf.run(projectId, leaf.path, text);
      }
      if (logged) this.statements.insertChange.run(projectId, version, seq, set.path, json, now);
      return serializedChange(set.path, set.value, json);
    });
    if (logged) this.trimLog(projectId, version, log_floor, retention, now);
    return { version, changes, value: readBack === null ? null : this.readValue(projectId, readBack) };
  }

  /** Keeps the commits after max(version - maxWrites, last expired one); the floor records what is covered. */
  private trimLog(projectId: number, version: number, floor: number, retention: ChangeLogRetention, now: number): void {
    // Scans from the oldest entry and stops at the first fresh one: cost follows what is trimmed.
    const fresh = this.statements.firstFreshChange.get(projectId, floor, now - retention.maxAgeMs) as
      | { version: number }
      | undefined;
    const ageFloor = fresh ? fresh.version - 1 : version - 1;
    const newFloor = Math.max(floor, version - retention.maxWrites, ageFloor);
    if (newFloor <= floor) return;
    this.statements.trimChanges.run(projectId, floor, newFloor);
    this.statements.setFloor.run(newFloor, projectId);
  }

  private deleteSubtree(projectId: number, path: string): void {
    if (path === ROOT_PATH) {
      this.statements.deleteAll.run(projectId);
      return;
    }
    const { from, to } = descendantRange(path);
    this.statements.deleteAt.run(projectId, path);
    this.statements.deleteRange.run(projectId, from, to);
  }

  private readValue(projectId: number, path: string): JsonValue {
    if (path === ROOT_PATH) return assembleValue(path, toLeaves(this.statements.allLeaves.all(projectId) as LeafRow[]));
    const at = this.statements.leafAt.get(projectId, path) as LeafRow | undefined;
    if (at) return JSON.parse(at.value) as JsonValue;
    const { from, to } = descendantRange(path);
    return assembleValue(path, toLeaves(this.statements.leavesInRange.all(projectId, from, to) as LeafRow[]));
  }

  /** Distinct child names by a skip scan: one index seek per child, never a walk of the descendants. */
  private childKeys(projectId: number, path: string): string[] {
    const prefix = path === ROOT_PATH ? '' : `${path}/`;
    const upper = path === ROOT_PATH ? null : descendantRange(path).to;
    const keys: string[] = [];
    // Paths never contain NUL, so `x + '\u0001'` is the first possible path after x.
    let bound = path === ROOT_PATH ? '\u0001' : prefix;
    for (;;) {
      const row = (
        upper === null
          ? this.statements.firstPathAfterOpen.get(projectId, bound)
          : this.statements.firstPathAfter.get(projectId, bound, upper)
      ) as { path: string } | undefined;
      if (!row) return keys;
      const rest = row.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      const key = slash === -1 ? rest : rest.slice(0, slash);
      keys.push(key);
      bound = slash === -1 ? `${row.path}\u0001` : `${prefix}${key}0`;
    }
  }

  private readVersion(projectId: number): VersionRow {
    return (this.statements.readVersion.get(projectId) as VersionRow | undefined) ?? { version: 0, log_floor: 0 };
  }
}

const NOTHING_PACKED = new Uint8Array(0);

function packedSubtree([packed, version]: PackedRow): PackedSubtree {
  return { packed: packed ?? NOTHING_PACKED, version: version ?? 0 };
}

function toLeaves(rows: LeafRow[]): TreeLeaf[] {
  return rows.map((row) => ({ path: row.path, value: JSON.parse(row.value) as JsonValue }));
}

/** Groups change rows (ordered by version, seq) into commits. */
function groupCommits(rows: ChangeRow[]): TreeCommit[] {
  const commits: TreeCommit[] = [];
  let current: TreeCommit | undefined;
  for (const row of rows) {
    const value = JSON.parse(row.value) as JsonValue;
    if (current?.version !== row.version) {
      current = { version: row.version, changes: [] };
      commits.push(current);
    }
    // The stored text is the value's JSON: replayed updates reuse it.
    current.changes.push(serializedChange(row.path, value, row.value));
  }
  return commits;
}
