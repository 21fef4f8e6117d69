/** Webhook deliveries (§16) in SQLite: `webhook_deliveries`, one row per webhook and event. */
import type Database from 'better-sqlite3';
import type { Delivery, DeliveryStatus, WebhookDeliveryStore } from '../../core/webhooks/delivery-store.js';

const COLUMNS = `webhook_id, seq, event_id, type, status, attempts, last_status_code, last_error, next_attempt_at,
  first_attempt_at, redeliver, json`;

const SQL = {
  upsert: `INSERT INTO webhook_deliveries (project_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (webhook_id, seq) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
      last_status_code = excluded.last_status_code, last_error = excluded.last_error,
      next_attempt_at = excluded.next_attempt_at, redeliver = excluded.redeliver, json = excluded.json`,
  // Of one status, the rows older than the `keep` latest.
  trim: `DELETE FROM webhook_deliveries WHERE webhook_id = @webhook AND status = @status AND seq < (
    SELECT seq FROM webhook_deliveries WHERE webhook_id = @webhook AND status = @status
    ORDER BY seq DESC LIMIT 1 OFFSET @keep - 1)`,
  get: `SELECT ${COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ? AND event_id = ?`,
  list: `SELECT ${COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ? ORDER BY seq DESC LIMIT ?`,
  listOf: `SELECT ${COLUMNS} FROM webhook_deliveries WHERE project_id = ? AND webhook_id = ? AND status = ?
    ORDER BY seq DESC LIMIT ?`,
  redeliveries: `SELECT ${COLUMNS} FROM webhook_deliveries
    WHERE project_id = ? AND webhook_id = ? AND redeliver = 1 AND status = 'pending' ORDER BY seq`,
};

interface DeliveryRow {
  webhook_id: number;
  seq: number;
  event_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  first_attempt_at: number;
  redeliver: number;
  json: string | null;
}

const toDelivery = (row: DeliveryRow): Delivery => ({
  webhookId: row.webhook_id,
  seq: row.seq,
  eventId: row.event_id,
  type: row.type,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at,
  firstAttemptAt: row.first_attempt_at,
  redeliver: row.redeliver === 1,
  json: row.json,
});

export class SqliteWebhookDeliveryStore implements WebhookDeliveryStore {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };
  private readonly recordAll: (projectId: number, deliveries: readonly Delivery[], keep: number) => void;

  constructor(db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
    this.recordAll = db.transaction((projectId: number, deliveries: readonly Delivery[], keep: number) => {
      for (const d of deliveries) {
        this.s.upsert.run(
          projectId,
          d.webhookId,
          d.seq,
          d.eventId,
          d.type,
          d.status,
          d.attempts,
          d.lastStatusCode,
          d.lastError,
          d.nextAttemptAt,
          d.firstAttemptAt,
          d.redeliver ? 1 : 0,
          d.json,
        );
      }
      for (const webhook of new Set(deliveries.map((d) => d.webhookId))) {
        for (const status of ['delivered', 'failed']) this.s.trim.run({ webhook, status, keep });
      }
    });
  }

  async record(projectId: number, deliveries: readonly Delivery[], keep: number): Promise<void> {
    if (deliveries.length > 0) this.recordAll(projectId, deliveries, keep);
  }

  async get(projectId: number, webhookId: number, eventId: string): Promise<Delivery | null> {
    const row = this.s.get.get(projectId, webhookId, eventId) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  }

  async list(projectId: number, webhookId: number, status: DeliveryStatus | null, limit: number): Promise<Delivery[]> {
    const rows = (
      status === null
        ? this.s.list.all(projectId, webhookId, limit)
        : this.s.listOf.all(projectId, webhookId, status, limit)
    ) as DeliveryRow[];
    return rows.map(toDelivery);
  }

  async redeliveries(projectId: number, webhookId: number): Promise<Delivery[]> {
    return (this.s.redeliveries.all(projectId, webhookId) as DeliveryRow[]).map(toDelivery);
  }
}
