/**
 * The outbox on PostgreSQL (§16). `appendEvents` runs inside a commit's transaction, as its last
 * statement before COMMIT: it locks the project's `event_heads` row, so commits of one project
 * take their `seq`s in the order they commit (a later commit waits there until the earlier one
 * has committed), and holds that lock only for the COMMIT itself. The rest is `EventStore`.
 */
import type pg from 'pg';
import type { ConsumerStart, ConsumerState, EventHead, EventStore, Lease } from '../../core/events/event-store.js';
import type { CommitEvents, NewEvent, StoredEvent } from '../../core/events/outbox-events.js';
import type { Queryable } from './transactions.js';

const APPEND = `WITH head AS (
  INSERT INTO event_heads (project_id, seq) VALUES ($1, $2) ON CONFLICT (project_id)
  DO UPDATE SET seq = event_heads.seq + EXCLUDED.seq RETURNING seq
)
INSERT INTO events (project_id, seq, id, type, created_at, json)
SELECT $1, (SELECT seq FROM head) - $2 + e.n, e.id, e.type, $3, e.json
FROM unnest($4::uuid[], $5::text[], $6::text[]) WITH ORDINALITY AS e(id, type, json, n)`;

/**
 * The statement a commit that records its events only for webhooks runs inside its transaction,
 * after its first statement (`projects`: an `int[]` literal): which of its projects have one. The
 * read holds its ACCESS SHARE lock on `webhooks` until the commit ends, and a webhook's creation
 * takes ACCESS EXCLUSIVE first (`lockWebhooks`): a commit that read before waits for nothing and
 * ends before the creation does; one that reads after waits for the creation to commit and, its
 * snapshot taken once its locks are held (READ COMMITTED), sees the new webhook.
 */
export const watchedProjects = (projects: string) =>
  `SELECT DISTINCT project_id FROM webhooks WHERE project_id = ANY(${projects})`;

/** Taken by a webhook's creation before anything else in its transaction: see `watchedProjects`. */
export const LOCK_WEBHOOKS = 'LOCK TABLE webhooks IN ACCESS EXCLUSIVE MODE';

/** Records a commit's events after the project's last ones, on the commit's own client. */
export async function appendEvents(
  client: Queryable,
  projectId: number,
  events: readonly NewEvent[],
  time: number,
): Promise<void> {
  if (events.length === 0) return;
  await client.query({
    name: 'cds_events_append',
    text: APPEND,
    values: [
      projectId,
      events.length,
      time,
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => e.json),
    ],
  });
}

/**
 * Records core's events of a commit on the commit's client, when it records events: always, or if
 * its project has a webhook (`watched`, when the commit's first statement already read it).
 */
export async function recordCommitEvents(client: Queryable, commit: CommitEvents, watched?: boolean): Promise<void> {
  let records = commit.record === 'always' || watched === true;
  if (!records && watched === undefined) {
    const { rows } = await client.query({
      name: 'cds_events_watched',
      text: 'SELECT 1 FROM webhooks WHERE project_id = $1 LIMIT 1',
      values: [commit.projectId],
    });
    records = rows.length > 0;
  }
  if (records) await appendEvents(client, commit.projectId, commit.events(), commit.time);
}

interface ClaimRow {
  position: string;
  attempts: number;
  next_attempt_at: string;
}

/** The events table of a PostgreSQL database; each method is one statement. */
export class PostgresEventStore implements EventStore {
  constructor(private readonly pool: pg.Pool) {}

  async projects(): Promise<number[]> {
    const { rows } = await this.pool.query<{ project_id: number }>(
      'SELECT project_id FROM event_heads ORDER BY project_id',
    );
    return rows.map((row) => row.project_id);
  }

  async heads(): Promise<EventHead[]> {
    const { rows } = await this.pool.query<{ project_id: number; seq: string }>(
      'SELECT project_id, seq FROM event_heads ORDER BY project_id',
    );
    return rows.map((row) => ({ projectId: row.project_id, seq: Number(row.seq) }));
  }

  async wake(projectId: number, consumer: string): Promise<void> {
    await this.pool.query('UPDATE event_consumers SET next_attempt_at = 0 WHERE project_id = $1 AND consumer = $2', [
      projectId,
      consumer,
    ]);
  }

  async read(projectId: number, afterSeq: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<{ seq: string; id: string; type: StoredEvent['type']; json: string }>({
      name: 'cds_events_read',
      text: 'SELECT seq, id, type, json FROM events WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      values: [projectId, afterSeq, limit],
    });
    return rows.map((row) => ({ ...row, seq: Number(row.seq), projectId }));
  }

  async claim(projectId: number, consumer: string, lease: Lease, start: ConsumerStart): Promise<ConsumerState | null> {
    if (start !== 'existing')
      await this.pool.query(
        `INSERT INTO event_consumers (project_id, consumer, position)
      VALUES ($1, $2, CASE WHEN $3 THEN COALESCE((SELECT seq FROM event_heads WHERE project_id = $1), 0) ELSE 0 END)
      ON CONFLICT (project_id, consumer) DO NOTHING`,
        [projectId, consumer, start === 'new'],
      );
    const { owner, now, leaseMs } = lease;
    const { rows } = await this.pool.query<ClaimRow>(
      `UPDATE event_consumers SET lease_owner = $3, lease_until = $4
      WHERE project_id = $1 AND consumer = $2 AND (lease_owner IS NULL OR lease_owner = $3 OR lease_until <= $5)
      RETURNING position, attempts, next_attempt_at`,
      [projectId, consumer, owner, now + leaseMs, now],
    );
    const row = rows[0];
    return row
      ? { position: Number(row.position), attempts: row.attempts, nextAttemptAt: Number(row.next_attempt_at) }
      : null;
  }

  async advance(projectId: number, consumer: string, owner: string, seq: number): Promise<void> {
    await this.pool.query(
      `UPDATE event_consumers SET position = $4, attempts = 0, next_attempt_at = 0, last_error = NULL
      WHERE project_id = $1 AND consumer = $2 AND lease_owner = $3`,
      [projectId, consumer, owner, seq],
    );
  }

  async fail(
    projectId: number,
    consumer: string,
    owner: string,
    retry: { attempts: number; at: number; error: string },
  ) {
    await this.pool.query(
      `UPDATE event_consumers SET attempts = $4, next_attempt_at = $5, last_error = $6
      WHERE project_id = $1 AND consumer = $2 AND lease_owner = $3`,
      [projectId, consumer, owner, retry.attempts, retry.at, retry.error],
    );
  }

  async release(projectId: number, consumer: string, owner: string): Promise<void> {
    await this.pool.query(
      `UPDATE event_consumers SET lease_owner = NULL, lease_until = 0
      WHERE project_id = $1 AND consumer = $2 AND lease_owner = $3`,
      [projectId, consumer, owner],
    );
  }

  async trim(projectId: number, expiredBefore: number): Promise<void> {
    // Events expire oldest first: the walk from the oldest stops at the first one still kept.
    await this.pool.query(
      `DELETE FROM events WHERE project_id = $1 AND (
        seq <= (SELECT min(position) FROM event_consumers WHERE project_id = $1)
        OR seq < COALESCE(
          (SELECT seq FROM events WHERE project_id = $1 AND created_at >= $2 ORDER BY seq LIMIT 1),
          (SELECT max(seq) + 1 FROM events WHERE project_id = $1), 0))`,
      [projectId, expiredBefore],
    );
  }
}
