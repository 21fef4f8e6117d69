import type pg from 'pg';
import type { ImportWebhookRow } from '../../core/transfer/webhook-transfer.js';
import type { NewWebhook, Webhook, WebhookStore } from '../../core/webhooks/webhook-store.js';
import { type WebhookRow, webhookRows } from '../rows.js';
import type { Queryable } from './transactions.js';

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
    const result =
      existingId === null
        ? await client.query<PostgresWebhookRow>(
            INSERT,
            webhookRows.newValues(
              projectId,
              { url, events, description, secret: webhookRows.importedSecret(row) },
              now,
            ),
          )
        : await client.query<PostgresWebhookRow>(
            `UPDATE webhooks SET events = $1::jsonb, description = $2, secret = coalesce($3, secret)
             WHERE project_id = $4 AND id = $5 RETURNING ${webhookRows.columns}`,
            [JSON.stringify(events), description, secret, projectId, existingId],
          );
    written.push(toWebhook(result.rows[0] as PostgresWebhookRow));
  }
  return written;
}

/** Webhook registrations (§16) in PostgreSQL; each method is one statement. */
export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(projectId: number, webhook: NewWebhook, now: number): Promise<Webhook> {
    const { rows } = await this.pool.query<PostgresWebhookRow>(INSERT, webhookRows.newValues(projectId, webhook, now));
    return toWebhook(rows[0] as PostgresWebhookRow);
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
    const { rowCount } = await this.pool.query('DELETE FROM webhooks WHERE project_id = $1 AND id = $2', [
      projectId,
      webhookId,
    ]);
    return (rowCount ?? 0) > 0;
  }
}
