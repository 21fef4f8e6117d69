import type Database from 'better-sqlite3';
import type { ImportWebhookRow } from '../../core/transfer/webhook-transfer.js';
import {
  type NewWebhook,
  type Webhook,
  type WebhookStore,
  webhookConsumer,
} from '../../core/webhooks/webhook-store.js';
import { type WebhookRow, webhookRows } from '../rows.js';

/** A webhook row as SQLite returns it: `events` as JSON text. */
type SqliteWebhookRow = Omit<WebhookRow, 'events'> & { events: string };

const toWebhook = (row: SqliteWebhookRow): Webhook =>
  webhookRows.of({ ...row, events: JSON.parse(row.events) as string[] });

/** The project's webhooks by id, with their secrets (the store's `list`, and §8's export in its transaction). */
export function listWebhooks(db: Database.Database, projectId: number): Webhook[] {
  return db
    .prepare<[number], SqliteWebhookRow>(`SELECT ${webhookRows.columns} FROM webhooks WHERE project_id = ? ORDER BY id`)
    .all(projectId)
    .map(toWebhook);
}

/** Writes an import's webhooks (§8) inside its transaction; answers them as stored, in order. */
export function writeImportedWebhooks(
  db: Database.Database,
  projectId: number,
  rows: readonly ImportWebhookRow[],
  now: number,
): Webhook[] {
  const store = new SqliteWebhookStore(db);
  const update = db.prepare<[string, string | null, string | null, number, number], SqliteWebhookRow>(
    `UPDATE webhooks SET events = ?, description = ?, secret = coalesce(?, secret) WHERE project_id = ? AND id = ?
     RETURNING ${webhookRows.columns}`,
  );
  return rows.map((row) => {
    const { existingId, url, events, description, secret } = row;
    if (existingId === null)
      return store.insert(projectId, { url, events, description, secret: webhookRows.importedSecret(row) }, now);
    return toWebhook(
      update.get(JSON.stringify(events), description, secret, projectId, existingId) as SqliteWebhookRow,
    );
  });
}

/** Webhook registrations (§16) in SQLite; each method is one statement. */
export class SqliteWebhookStore implements WebhookStore {
  constructor(private readonly db: Database.Database) {}

  async create(projectId: number, webhook: NewWebhook, now: number): Promise<Webhook> {
    return this.insert(projectId, webhook, now);
  }

  /**
   * `create`, synchronously (an import's transaction calls it): the webhook and its consumer at the
   * project's last event, in one transaction, which no commit overlaps (one writer at a time).
   */
  insert(projectId: number, webhook: NewWebhook, now: number): Webhook {
    return this.db.transaction(() => {
      const row = this.db
        .prepare<[number, string, string, string | null, string, number], SqliteWebhookRow>(
          `INSERT INTO webhooks (project_id, url, events, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)
           RETURNING ${webhookRows.columns}`,
        )
        .get(...webhookRows.newValues(projectId, webhook, now)) as SqliteWebhookRow;
      this.db
        .prepare(
          `INSERT INTO event_consumers (project_id, consumer, position)
           VALUES (?, ?, coalesce((SELECT seq FROM event_heads WHERE project_id = ?), 0))`,
        )
        .run(projectId, webhookConsumer(row.id), projectId);
      return toWebhook(row);
    })();
  }

  async list(projectId: number): Promise<Webhook[]> {
    return listWebhooks(this.db, projectId);
  }

  async get(projectId: number, webhookId: number): Promise<Webhook | null> {
    const row = this.db
      .prepare<[number, number], SqliteWebhookRow>(
        `SELECT ${webhookRows.columns} FROM webhooks WHERE project_id = ? AND id = ?`,
      )
      .get(projectId, webhookId);
    return row ? toWebhook(row) : null;
  }

  async delete(projectId: number, webhookId: number): Promise<boolean> {
    return this.db.transaction(() => {
      const gone = this.db.prepare('DELETE FROM webhooks WHERE project_id = ? AND id = ?').run(projectId, webhookId);
      if (gone.changes === 0) return false;
      this.db
        .prepare('DELETE FROM event_consumers WHERE project_id = ? AND consumer = ?')
        .run(projectId, webhookConsumer(webhookId));
      this.db.prepare('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(webhookId);
      return true;
    })();
  }
}
