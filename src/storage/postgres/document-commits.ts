/**
 * The document writes of PostgreSQL as commits: the `DocumentStore.apply` calls that arrive
 * while the previous commit runs share the next transaction, which
 *
 * 1. begins and locks the document version row of each project it writes, in project order
 *    (one round trip): every document writer locks them first, so a project's writers queue
 *    there, versions follow commit order on every instance, and no deadlock forms;
 * 2. reads the stored documents its mutations need (one statement), unless none does;
 * 3. lets each call decide, in order, on the documents as the commit left them so far, each
 *    accepted call with the next version of its project (`ProjectCommits`; a call whose
 *    mutation refuses is left out, alone, and takes no version);
 * 4. writes the outcome (one statement), the change log (one), stores each project's last
 *    version with the log's trim (one per project) and commits.
 */
import type pg from 'pg';
import { CallChanges, decideMutation, ProjectCommits } from '../../core/documents/commit-builder.js';
import type {
  AppliedCall,
  AppliedMutation,
  DocumentChangeEntry,
  DocumentCommit,
  DocumentMutation,
  StoredDocument,
} from '../../core/documents/document-store.js';
import { validationFailed } from '../../core/errors.js';
import type { EventRecord } from '../../core/events/event-recording.js';
import { documentEvents, type NewEvent } from '../../core/events/outbox-events.js';
import type { JsonObject } from '../../core/json.js';
import type { DocumentPath } from '../../core/paths.js';
import { type ChangeLogRetention, countFloor } from '../../core/realtime/tree-store.js';
import { appendEvents, watchedProjects } from './event-store.js';

export const postgresCommitSql = {
  readStored: `SELECT d.project_id, d.path, d.id, d.data, d.version FROM documents d
JOIN unnest($1::int[], $2::text[]) AS k(project_id, path) ON d.project_id = k.project_id AND d.path = k.path`,
  /**
   * A commit's outcome in one statement: the documents it deletes (`$8`, `$9`) and those it
   * writes (one row per element of `$1`–`$7`; a new row takes the given id, a stored one keeps its own
   * unless `$10`: the commit read the stored documents, so core decided each id, a new one over an
   * expired document, §17).
   */
  write: `WITH gone AS (
  DELETE FROM documents d USING unnest($8::int[], $9::text[]) AS g(project_id, path)
  WHERE d.project_id = g.project_id AND d.path = g.path
)
INSERT INTO documents (project_id, path, parent, collection, id, data, version)
SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::jsonb[], $7::bigint[])
ON CONFLICT (project_id, path) DO UPDATE SET data = EXCLUDED.data, version = EXCLUDED.version, updated_at = now(),
  id = CASE WHEN $10::boolean THEN EXCLUDED.id ELSE documents.id END
RETURNING project_id, path, id, (xmax = 0) AS created,
  -- The statement's snapshot predates its own write: this is the data before it (the log's \`previous\`).
  (SELECT o.data FROM documents o WHERE o.project_id = documents.project_id AND o.path = documents.path) AS previous`,
  /** A commit's change log rows (§10): one per document it changed, `data` null for a delete. */
  logChanges: `INSERT INTO document_changes (project_id, version, seq, path, id, data, previous)
SELECT * FROM unnest($1::int[], $2::bigint[], $3::int[], $4::text[], $5::uuid[], $6::jsonb[], $7::jsonb[])`,
  /**
   * Stores a project's last version after a commit and trims its log like the tree's: finds the first entry still fresh (scanning from the
   * oldest, so the cost follows what is trimmed), moves the floor past the expired and the
   * surplus, deletes below it. Unlike the tree's, a commit may log nothing (all its writes were
   * refused): with no entry fresh, the floor moves to the last entry, not to the version. `$2` is
   * the floor before the commit, `$3` the project's last version after it (stored here), `$6`
   * the first version it gave out, `$4` the floor the count bound asks for (`countFloor`). The search for a fresh entry has a lower bound
   * only, as the tree's has: with `version < $3` too, the generic plan takes the range for a few
   * rows and reads and sorts the whole log (73,000 entries, 40 ms a commit) instead of walking the
   * key from the oldest. It stops at the commit's own entries at the latest, which count as none.
   */
  storeVersion: `WITH fresh AS (
    SELECT version FROM document_changes
    WHERE project_id = $1 AND version > $2 AND created_at >= clock_timestamp() - $5 * interval '1 millisecond'
    ORDER BY version, seq LIMIT 1
  ), cut AS (
    SELECT GREATEST($2::bigint, $4::bigint, COALESCE(NULLIF((SELECT version FROM fresh), $6::bigint) - 1,
      (SELECT max(version) FROM document_changes WHERE project_id = $1 AND version > $2 AND version < $6), $2::bigint)) AS floor
  ), trimmed AS (
    DELETE FROM document_changes WHERE project_id = $1 AND version > $2 AND version <= (SELECT floor FROM cut)
  )
  UPDATE document_versions SET version = $3, log_floor = GREATEST(log_floor, (SELECT floor FROM cut))
  WHERE project_id = $1`,
} as const;

/** BEGIN and the lock of `projects`' version rows (integers, ascending) as one simple-protocol query. */
function beginAndLock(projects: readonly number[], checkWebhooks: boolean): string {
  const list = `'{${projects.join(',')}}'::int[]`;
  return `BEGIN; INSERT INTO document_versions (project_id, version)
SELECT p, 0 FROM unnest(${list}) AS p
ON CONFLICT (project_id) DO UPDATE SET version = document_versions.version
RETURNING project_id, version, log_floor${checkWebhooks ? `; ${watchedProjects(list)}` : ''}`;
}

interface ApplyCall {
  projectId: number;
  mutations: readonly DocumentMutation[];
  retention: ChangeLogRetention;
  events: EventRecord;
}

type Outcome = ({ ok: true } & AppliedCall) | { ok: false; error: unknown };

/** A document as the commit has it so far: stored (or null when absent), and whether the database has it. */
interface Slot {
  path: DocumentPath;
  projectId: number;
  document: StoredDocument | null;
  inDatabase: boolean;
  dirty: boolean;
}

interface VersionRow {
  project_id: number;
  version: string;
  log_floor: string;
}

interface StoredRow {
  project_id: number;
  path: string;
  id: string;
  data: JsonObject;
  version: string;
}

interface WrittenRow {
  project_id: number;
  path: string;
  id: string;
  created: boolean;
  previous: JsonObject | null;
}

const keyOf = (projectId: number, path: string) => `${projectId}/${path}`;

const NUL_ISSUE = { loc: ['body', 'data'], msg: 'Strings may not contain the NUL character', type: 'value_error' };

/** PostgreSQL refuses `\u0000` in jsonb (22P05): the §0 validation failure. */
function nulRefused(error: unknown): unknown {
  return (error as { code?: unknown }).code === '22P05' ? validationFailed([NUL_ISSUE]) : error;
}

interface Pending {
  call: ApplyCall;
  resolve: (outcome: Outcome) => void;
  reject: (error: unknown) => void;
}

/** Calls per commit at most: bounds the parameter arrays. */
const MAX_CALLS = 256;

/**
 * Commits `DocumentMutation`s for `PostgresDocumentStore`, one commit in flight per process:
 * the calls arriving while one commits wait and go together in the next. A commit holds its
 * projects' version rows until it ends, so commits of one project cannot overlap anyway; waiting
 * here instead of on the row lock makes each commit carry everything that arrived meanwhile.
 */
export class PostgresDocumentCommits {
  private queue: Pending[] = [];
  private running = false;

  constructor(private readonly pool: pg.Pool) {}

  async apply(
    projectId: number,
    mutations: readonly DocumentMutation[],
    retention: ChangeLogRetention,
    events: EventRecord,
  ): Promise<AppliedCall> {
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      this.queue.push({ call: { projectId, mutations, retention, events }, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
    if (!outcome.ok) throw outcome.error;
    return { applied: outcome.applied, commit: outcome.commit };
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const round = this.queue.splice(0, MAX_CALLS);
      try {
        const outcomes = await this.commit(round.map((pending) => pending.call));
        for (const [i, pending] of round.entries()) pending.resolve(outcomes[i] as Outcome);
      } catch (error) {
        // Nothing of the round was written; each call's own commit gives it its own answer.
        if (round.length === 1) (round[0] as Pending).reject(nulRefused(error));
        else for (const pending of round) await this.commitAlone(pending);
      }
    }
    this.running = false;
  }

  private async commitAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve((await this.commit([pending.call]))[0] as Outcome);
    } catch (error) {
      pending.reject(nulRefused(error));
    }
  }

  private async commit(calls: readonly ApplyCall[]): Promise<Outcome[]> {
    const client = await this.pool.connect();
    try {
      const projectIds = [...new Set(calls.map((call) => call.projectId))].sort((a, b) => a - b);
      const checkWebhooks = calls.some((call) => call.events === 'if-webhook');
      const results = (await client.query(beginAndLock(projectIds, checkWebhooks))) as unknown as pg.QueryResult[];
      const locked = (results[1]?.rows ?? []) as VersionRow[];
      const watched = new Set((results[2]?.rows ?? []).map((row) => (row as { project_id: number }).project_id));
      const projects = new Map(
        locked.map((row) => [row.project_id, new ProjectCommits(row.project_id, Number(row.version))]),
      );
      const time = Date.now();
      const read = needsRead(calls);
      const slots = read ? await readSlots(client, calls) : new Map<string, Slot>();
      const outcomes = calls.map((call): Outcome => {
        const project = projects.get(call.projectId) as ProjectCommits;
        const decided = decideCall(call, { version: project.next, time }, slots);
        return decided.ok
          ? { ok: true, applied: decided.applied, commit: project.accept(decided.changes.list()) }
          : decided;
      });
      const written = await writeSlots(client, slots, read);
      // Without a read, each document is written once: the write statement tells its id and data before.
      if (!read) for (const project of projects.values()) withStoredRows(project, written);
      await logCommits(client, projects.values());
      const retentionOf = new Map(calls.map((call) => [call.projectId, call.retention]));
      for (const row of locked) {
        const project = projects.get(row.project_id) as ProjectCommits;
        if (project.commits.length === 0) continue;
        const retention = retentionOf.get(row.project_id) as ChangeLogRetention;
        await client.query({
          name: 'cds_documents_store_version',
          text: postgresCommitSql.storeVersion,
          values: [
            row.project_id,
            row.log_floor,
            project.last,
            countFloor(project.last, Number(row.log_floor), retention.maxWrites),
            retention.maxAgeMs,
            project.base + 1,
          ],
        });
      }
      await recordEvents(client, calls, outcomes, time, watched);
      await client.query('COMMIT');
      return read ? outcomes : outcomes.map((outcome, i) => withStoredIds(outcome, calls[i]?.projectId ?? 0, written));
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/**
 * The `document.written` events of the calls that record them (always, or their project is among
 * `watched`, those with a webhook), appended last (`appendEvents`).
 */
async function recordEvents(
  client: pg.PoolClient,
  calls: readonly ApplyCall[],
  outcomes: Outcome[],
  time: number,
  watched: ReadonlySet<number>,
) {
  const byProject = new Map<number, NewEvent[]>();
  outcomes.forEach((outcome, i) => {
    const call = calls[i] as ApplyCall;
    if (!outcome.ok || (call.events !== 'always' && !watched.has(call.projectId))) return;
    const events = byProject.get(call.projectId) ?? [];
    events.push(...documentEvents(call.projectId, outcome.commit, time));
    byProject.set(call.projectId, events);
  });
  for (const [projectId, events] of byProject) await appendEvents(client, projectId, events, time);
}

/** Whether the commit must read stored documents: a mutation needs one, or a document is written twice. */
function needsRead(calls: readonly ApplyCall[]): boolean {
  const keys = new Set<string>();
  for (const call of calls) {
    for (const mutation of call.mutations) {
      const key = keyOf(call.projectId, mutation.path.path);
      if (mutation.readsStored || keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}

/** Every document the calls touch, as stored, read in one statement. */
async function readSlots(client: pg.PoolClient, calls: readonly ApplyCall[]): Promise<Map<string, Slot>> {
  const slots = new Map<string, Slot>();
  for (const call of calls) {
    for (const { path } of call.mutations) {
      const key = keyOf(call.projectId, path.path);
      if (!slots.has(key)) slots.set(key, emptySlot(call.projectId, path));
    }
  }
  const targets = [...slots.values()];
  const { rows } = await client.query<StoredRow>({
    name: 'cds_documents_read_stored',
    text: postgresCommitSql.readStored,
    values: [targets.map((slot) => slot.projectId), targets.map((slot) => slot.path.path)],
  });
  for (const row of rows) {
    const slot = slots.get(keyOf(row.project_id, row.path));
    if (!slot) continue;
    slot.document = { id: row.id, path: row.path, data: row.data, version: Number(row.version) };
    slot.inDatabase = true;
  }
  return slots;
}

const emptySlot = (projectId: number, path: DocumentPath): Slot => ({
  projectId,
  path,
  document: null,
  inDatabase: false,
  dirty: false,
});

type Decided = { ok: true; applied: AppliedMutation[]; changes: CallChanges } | { ok: false; error: unknown };

/**
 * Lets the call's mutations decide in order on the documents as the commit has them; the call's
 * changes reach `slots` only when every one of its mutations accepted.
 */
function decideCall(call: ApplyCall, commit: DocumentCommit, slots: Map<string, Slot>): Decided {
  const changed = new Map<string, Slot>();
  const changes = new CallChanges();
  try {
    const applied = call.mutations.map((mutation): AppliedMutation => {
      const key = keyOf(call.projectId, mutation.path.path);
      const current = changed.get(key) ?? slots.get(key) ?? emptySlot(call.projectId, mutation.path);
      const decided = decideMutation(mutation, current.document, commit, changes);
      changed.set(key, { ...current, document: decided.document, dirty: true });
      return decided.applied;
    });
    for (const [key, slot] of changed) slots.set(key, slot);
    return { ok: true, applied, changes };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Stores the final state of every document the commit changed: written ones upserted, the rest deleted. */
async function writeSlots(
  client: pg.PoolClient,
  slots: Map<string, Slot>,
  read: boolean,
): Promise<Map<string, WrittenRow>> {
  const writes: Slot[] = [];
  const deletes: Slot[] = [];
  for (const slot of slots.values()) {
    if (!slot.dirty) continue;
    if (slot.document) writes.push(slot);
    else if (slot.inDatabase) deletes.push(slot);
  }
  if (writes.length === 0 && deletes.length === 0) return new Map();
  const documents = writes.map((slot) => slot.document as StoredDocument);
  const { rows } = await client.query<WrittenRow>({
    name: 'cds_documents_write',
    text: postgresCommitSql.write,
    values: [
      writes.map((slot) => slot.projectId),
      writes.map((slot) => slot.path.path),
      writes.map((slot) => slot.path.parent),
      writes.map((slot) => slot.path.collection),
      documents.map((document) => document.id),
      documents.map((document) => JSON.stringify(document.data)),
      documents.map((document) => document.version),
      deletes.map((slot) => slot.projectId),
      deletes.map((slot) => slot.path.path),
      read,
    ],
  });
  return new Map(rows.map((row) => [keyOf(row.project_id, row.path), row]));
}

/** Appends the change log rows of the projects' commits (one statement): one per document each commit changed. */
async function logCommits(client: pg.PoolClient, projects: Iterable<ProjectCommits>): Promise<void> {
  const rows: { projectId: number; version: number; seq: number; change: DocumentChangeEntry }[] = [];
  for (const project of projects) {
    for (const { version, changes } of project.commits) {
      for (const [seq, change] of changes.entries()) rows.push({ projectId: project.projectId, version, seq, change });
    }
  }
  if (rows.length === 0) return;
  await client.query({
    name: 'cds_documents_log_changes',
    text: postgresCommitSql.logChanges,
    values: [
      rows.map((row) => row.projectId),
      rows.map((row) => row.version),
      rows.map((row) => row.seq),
      rows.map((row) => row.change.path),
      rows.map((row) => row.change.id),
      rows.map((row) => (row.change.data === null ? null : JSON.stringify(row.change.data))),
      rows.map((row) => (row.change.previous === null ? null : JSON.stringify(row.change.previous))),
    ],
  });
}

/** The changes of blind writes (each document written once) with the id the database kept and the data before. */
function withStoredRows(project: ProjectCommits, written: Map<string, WrittenRow>): void {
  for (const { changes } of project.commits) {
    for (const change of changes) {
      const row = written.get(keyOf(project.projectId, change.path));
      if (!row) continue;
      change.id = row.id;
      change.previous = row.previous;
    }
  }
}

/** The outcome of blind writes with the id the database kept and whether the row was new. */
function withStoredIds(outcome: Outcome, projectId: number, written: Map<string, WrittenRow>): Outcome {
  if (!outcome.ok) return outcome;
  const applied = outcome.applied.map((item) => {
    if (item.kind !== 'written') return item;
    const row = written.get(keyOf(projectId, item.path));
    return row ? { ...item, id: row.id, created: row.created } : item;
  });
  return { ...outcome, applied };
}
