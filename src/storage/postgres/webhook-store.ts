import type pg from 'pg';
import type { ImportWebhookRow } from '../../core/transfer/webhook-transfer.js';
import {
  type NewWebhook,
  type Webhook,
  type WebhookStore,
  webhookConsumer,
} from '../../core/webhooks/webhook-store.js';
import { type WebhookRow, webhookRows } from '../rows.js';
import { LOCK_WEBHOOKS } from './event-store.js';
import { inTransaction, type Queryable } from './transactions.js';

/** A webhook row as `pg` returns it: `created_at` (BIGINT) as a string. */
type PostgresWebhookRow = Omit<WebhookRow, 'created_at'> & { created_at: string };

const toWebhook = (row: PostgresWebhookRow): Webhook => webhookRows.of({ ...row, created_at: Number(row.created_at) });

/**
 * The project's webhooks by id, with their secrets (the store's `list`, and §8's export and
 * import in their transactions; `lock`: rows an import may update stay until it commits).
 */
export async function listWebhooks(db: Queryable, projectId: number, lock = false): Promise<Webhook[]> {
  const { rows } = await db.query<PostgresWebhookRow>(
    `SELECT ${webhookRows.columns} FROM webhooks WHERE project_id = $1 ORDER BY id${lock ? ' FOR UPDATE' : ''}`,
    [projectId],
  );
  return rows.map(toWebhook);
}

const INSERT = `INSERT INTO webhooks (project_id, url, events, description, secret, created_at)
  VALUES ($1, $2, $3::jsonb, $4, $5, $6) RETURNING ${webhookRows.columns}`;

/**
 * Stores a new webhook and its consumer at the project's last event, inside the caller's
 * transaction, after locking `webhooks` against every commit that reads it (`LOCK_WEBHOOKS`): the
 * commits that checked before have ended, so the head read here follows their events, and later
 * ones see the webhook.
 */
async function insertWebhook(client: Queryable, projectId: number, webhook: NewWebhook, now: number): Promise<Webhook> {
  await client.query(LOCK_WEBHOOKS);
  const { rows } = await client.query<PostgresWebhookRow>(INSERT, webhookRows.newValues(projectId, webhook, now));
  const created = toWebhook(rows[0] as PostgresWebhookRow);
  await client.query(
    `INSERT INTO event_consumers (project_id, consumer, position)
    VALUES ($1, $2, COALESCE((SELECT seq FROM event_heads WHERE project_id = $1), 0))`,
    [projectId, webhookConsumer(created.id)],
  );
  return created;
}

/** Writes an import's webhooks (§8) inside its transaction; answers them as stored, in order. */
export async function writeImportedWebhooks(
  client: Queryable,
  projectId: number,
  rows: readonly ImportWebhookRow[],
  now: number,
): Promise<Webhook[]> {
  const written: Webhook[] = [];
  for (const row of rows) {
    const { existingId, url, events, description, secret } = row;
    if (existingId === null) {
      const secret = webhookRows.importedSecret(row);
      written.push(await insertWebhook(client, projectId, { url, events, description, secret }, now));
      continue;
    }
    const result = await client.query<PostgresWebhookRow>(
      `UPDATE webhooks SET events = $1::jsonb, description = $2, secret = coalesce($3, secret)
       WHERE project_id = $4 AND id = $5 RETURNING ${webhookRows.columns}`,
      [JSON.stringify(events), description, secret, projectId, existingId],
    );
    written.push(toWebhook(result.rows[0] as PostgresWebhookRow));
  }
  return written;
}

/** Webhook registrations (§16) in PostgreSQL; each method is one transaction. */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(projectId: number, webhook: NewWebhook, now: number): Promise<Webhook> {
    return inTransaction(this.pool, (client) => insertWebhook(client, projectId, webhook, now));
  }

  async list(projectId: number): Promise<Webhook[]> {
    return listWebhooks(this.pool, projectId);
  }

  async get(projectId: number, webhookId: number): Promise<Webhook | null> {
    const { rows } = await this.pool.query<PostgresWebhookRow>(
      `SELECT ${webhookRows.columns} FROM webhooks WHERE project_id = $1 AND id = $2`,
      [projectId, webhookId],
    );
    const row = rows[0];
    return row ? toWebhook(row) : null;
  }

  async delete(projectId: number, webhookId: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2', [
        projectId,
        webhookId,
      ]);
      if ((rowCount ?? 0) === 0) return false;
      await client.query('DELETE FROM event_consumers WHERE project_id = $1 AND consumer = $2', [
        projectId,
        webhookConsumer(webhookId),
      ]);
      await client.query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]);
      return true;
    });
  }
}
