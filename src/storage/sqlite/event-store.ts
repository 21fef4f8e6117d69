/**
 * The outbox on SQLite (§16): `append` runs inside a commit's transaction (the document and tree
 * stores call it), taking the project's next `seq`s from `event_heads`; the rest is `EventStore`.
 * One writer at a time: `seq` order is commit order.
 */
import type Database from 'better-sqlite3';
import type { EventRecord } from '../../core/events/event-recording.js';
import type { ConsumerStart, ConsumerState, EventHead, EventStore, Lease } from '../../core/events/event-store.js';
import type { CommitEvents, NewEvent, StoredEvent } from '../../core/events/outbox-events.js';

const SQL = {
  takeSeqs: `INSERT INTO event_heads (project_id, seq) VALUES (?, ?)
    ON CONFLICT (project_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq`,
  insert: 'INSERT INTO events (project_id, seq, id, type, created_at, json) VALUES (?, ?, ?, ?, ?, ?)',
  projects: 'SELECT project_id FROM event_heads ORDER BY project_id',
  read: 'SELECT seq, id, type, json FROM events WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  head: 'SELECT seq FROM event_heads WHERE project_id = ?',
  heads: 'SELECT project_id, seq FROM event_heads ORDER BY project_id',
  watched: 'SELECT 1 FROM webhooks WHERE project_id = ? LIMIT 1',
  wake: 'UPDATE event_consumers SET next_attempt_at = 0 WHERE project_id = ? AND consumer = ?',
  create: `INSERT INTO event_consumers (project_id, consumer, position) VALUES (?, ?, ?)
    ON CONFLICT (project_id, consumer) DO NOTHING`,
  claim: `UPDATE event_consumers SET lease_owner = ?, lease_until = ?
    WHERE project_id = ? AND consumer = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until <= ?)
    RETURNING position, attempts, next_attempt_at`,
  advance: `UPDATE event_consumers SET position = ?, attempts = 0, next_attempt_at = 0, last_error = NULL
    WHERE project_id = ? AND consumer = ? AND lease_owner = ?`,
  fail: `UPDATE event_consumers SET attempts = ?, next_attempt_at = ?, last_error = ?
    WHERE project_id = ? AND consumer = ? AND lease_owner = ?`,
  release: `UPDATE event_consumers SET lease_owner = NULL, lease_until = 0
    WHERE project_id = ? AND consumer = ? AND lease_owner = ?`,
  trimTaken: `DELETE FROM events WHERE project_id = ? AND seq <= (
    SELECT min(position) FROM event_consumers WHERE project_id = ?)`,
  // Events expire oldest first: the walk from the oldest stops at the first one still kept.
  trimExpired: `DELETE FROM events WHERE project_id = @project AND seq < coalesce(
    (SELECT seq FROM events WHERE project_id = @project AND created_at >= @before ORDER BY seq LIMIT 1),
    (SELECT max(seq) + 1 FROM events WHERE project_id = @project), 0)`,
};

interface ClaimRow {
  position: number;
  attempts: number;
  next_attempt_at: number;
}

/** The events table of an embedded database. */
export class SqliteEventStore implements EventStore {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };

  constructor(private readonly db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
  }

  /**
   * Whether a commit of the project records its events (inside the commit's transaction, which
   * no webhook's creation can overlap: SQLite has one writer at a time).
   */
  records(projectId: number, record: EventRecord): boolean {
    return record === 'always' || this.s.watched.get(projectId) !== undefined;
  }

  /** Records core's events of a commit when the commit records events (inside its transaction). */
  record(commit: CommitEvents): void {
    if (this.records(commit.projectId, commit.record)) this.append(commit.projectId, commit.events(), commit.time);
  }

  /** Records a commit's events after the project's last ones (inside the commit's transaction). */
  append(projectId: number, events: readonly NewEvent[], time: number): void {
    if (events.length === 0) return;
    const { seq: last } = this.s.takeSeqs.get(projectId, events.length) as { seq: number };
    events.forEach((event, i) => {
      this.s.insert.run(projectId, last - events.length + 1 + i, event.id, event.type, time, event.json);
    });
  }

  async projects(): Promise<number[]> {
    return (this.s.projects.all() as { project_id: number }[]).map((row) => row.project_id);
  }

  async heads(): Promise<EventHead[]> {
    return (this.s.heads.all() as { project_id: number; seq: number }[]).map((row) => ({
      projectId: row.project_id,
      seq: row.seq,
    }));
  }

  async wake(projectId: number, consumer: string): Promise<void> {
    this.s.wake.run(projectId, consumer);
  }

  async read(projectId: number, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    const rows = this.s.read.all(projectId, afterSeq, limit) as Omit<StoredEvent, 'projectId'>[];
    return rows.map((row) => ({ ...row, projectId }));
  }

  async claim(projectId: number, consumer: string, lease: Lease, start: ConsumerStart): Promise<ConsumerState | null> {
    return this.db.transaction(() => {
      const head = start === 'new' ? ((this.s.head.get(projectId) as { seq: number } | undefined)?.seq ?? 0) : 0;
      if (start !== 'existing') this.s.create.run(projectId, consumer, head);
      const { owner, now, leaseMs } = lease;
      const row = this.s.claim.get(owner, now + leaseMs, projectId, consumer, owner, now) as ClaimRow | undefined;
      return row ? { position: row.position, attempts: row.attempts, nextAttemptAt: row.next_attempt_at } : null;
    })();
  }

  async advance(projectId: number, consumer: string, owner: string, seq: number): Promise<void> {
    this.s.advance.run(seq, projectId, consumer, owner);
  }

  async fail(
    projectId: number,
    consumer: string,
    owner: string,
    retry: { attempts: number; at: number; error: string },
  ) {
    this.s.fail.run(retry.attempts, retry.at, retry.error, projectId, consumer, owner);
  }

  async release(projectId: number, consumer: string, owner: string): Promise<void> {
    this.s.release.run(projectId, consumer, owner);
  }

  async trim(projectId: number, expiredBefore: number): Promise<void> {
    this.db.transaction(() => {
      this.s.trimTaken.run(projectId, projectId);
      this.s.trimExpired.run({ project: projectId, before: expiredBefore });
    })();
  }
}
