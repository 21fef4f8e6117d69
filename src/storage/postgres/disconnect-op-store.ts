/**
 * On-disconnect ops and instance leases on PostgreSQL (§17): one statement each. A claim deletes
 * the lapsed lease rows and moves their ops in one statement: of instances claiming one lease at
 * once, the row lock lets one delete it, and the others, re-checking once it is released, find
 * nothing to delete and so move nothing.
 */
import type pg from 'pg';
import type { DisconnectOp, DisconnectOpStore } from '../../core/realtime/disconnect-op-store.js';
import { type DisconnectOpRow, disconnectOpRows } from '../rows.js';

const START_LEASE = `INSERT INTO instance_leases (instance_id, expires_at) VALUES ($1, $2)
  ON CONFLICT (instance_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`;
const ADD = `INSERT INTO disconnect_ops (${disconnectOpRows.columns})
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM instance_leases WHERE instance_id = $2)`;
const OF_INSTANCE = `SELECT ${disconnectOpRows.columns} FROM disconnect_ops WHERE instance_id = $1
  ORDER BY connection_id, seq`;
const CLAIM = `WITH lapsed AS (
  DELETE FROM instance_leases WHERE expires_at < $2 AND instance_id <> $1 RETURNING instance_id
) UPDATE disconnect_ops SET instance_id = $1 WHERE instance_id IN (SELECT instance_id FROM lapsed)`;

type PostgresOpRow = Omit<DisconnectOpRow, 'created_at'> & { created_at: string };

/** The `disconnect_ops` and `instance_leases` tables of a PostgreSQL database. */
export class PostgresDisconnectOpStore implements DisconnectOpStore {
  constructor(private readonly pool: pg.Pool) {}

  async startLease(instanceId: string, expiresAt: number): Promise<void> {
    await this.pool.query(START_LEASE, [instanceId, expiresAt]);
  }

  async renewLease(instanceId: string, expiresAt: number): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE instance_leases SET expires_at = $2 WHERE instance_id = $1', [
      instanceId,
      expiresAt,
    ]);
    return rowCount === 1;
  }

  async endLease(instanceId: string): Promise<void> {
    await this.pool.query('DELETE FROM instance_leases WHERE instance_id = $1', [instanceId]);
  }

  async add(op: DisconnectOp): Promise<boolean> {
    const { rowCount } = await this.pool.query(ADD, disconnectOpRows.values(op));
    return rowCount === 1;
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.pool.query('DELETE FROM disconnect_ops WHERE id = ANY($1::text[])', [ids]);
  }

  async ofInstance(instanceId: string): Promise<DisconnectOp[]> {
    const { rows } = await this.pool.query<PostgresOpRow>(OF_INSTANCE, [instanceId]);
    return rows.map((row) => disconnectOpRows.of({ ...row, created_at: Number(row.created_at) }));
  }

  async claimLapsed(claimer: string, now: number): Promise<number> {
    const { rowCount } = await this.pool.query(CLAIM, [claimer, now]);
    return rowCount ?? 0;
  }
}
