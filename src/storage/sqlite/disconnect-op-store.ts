/**
 * On-disconnect ops and instance leases on SQLite (§17). One writer at a time makes a claim (an
 * immediate transaction) atomic across the connections of every instance on the file.
 */
import type Database from 'better-sqlite3';
import type { DisconnectOp, DisconnectOpStore } from '../../core/realtime/disconnect-op-store.js';
import { type DisconnectOpRow, disconnectOpRows } from '../rows.js';

const SQL = {
  startLease: `INSERT INTO instance_leases (instance_id, expires_at) VALUES (?, ?)
    ON CONFLICT (instance_id) DO UPDATE SET expires_at = excluded.expires_at`,
  renewLease: 'UPDATE instance_leases SET expires_at = ? WHERE instance_id = ?',
  endLease: 'DELETE FROM instance_leases WHERE instance_id = ?',
  add: `INSERT INTO disconnect_ops (${disconnectOpRows.columns})
    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM instance_leases WHERE instance_id = ?)`,
  remove: 'DELETE FROM disconnect_ops WHERE id = ?',
  ofInstance: `SELECT ${disconnectOpRows.columns} FROM disconnect_ops WHERE instance_id = ?
    ORDER BY connection_id, seq`,
  lapsed: 'SELECT instance_id FROM instance_leases WHERE expires_at < ? AND instance_id <> ?',
  moveOps: 'UPDATE disconnect_ops SET instance_id = ? WHERE instance_id = ?',
};

/** The `disconnect_ops` and `instance_leases` tables of an embedded database. */
export class SqliteDisconnectOpStore implements DisconnectOpStore {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };
  private readonly claim: (claimer: string, now: number) => number;
  private readonly removeAll: (ids: readonly string[]) => void;

  constructor(db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
    const claim = db.transaction((claimer: string, now: number) => {
      let moved = 0;
      for (const { instance_id } of this.s.lapsed.all(now, claimer) as { instance_id: string }[]) {
        moved += this.s.moveOps.run(claimer, instance_id).changes;
        this.s.endLease.run(instance_id);
      }
      return moved;
    });
    this.claim = (claimer, now) => claim.immediate(claimer, now);
    this.removeAll = db.transaction((ids: readonly string[]) => {
      for (const id of ids) this.s.remove.run(id);
    });
  }

  async startLease(instanceId: string, expiresAt: number): Promise<void> {
    this.s.startLease.run(instanceId, expiresAt);
  }

  async renewLease(instanceId: string, expiresAt: number): Promise<boolean> {
    return this.s.renewLease.run(expiresAt, instanceId).changes === 1;
  }

  async endLease(instanceId: string): Promise<void> {
    this.s.endLease.run(instanceId);
  }

  async add(op: DisconnectOp): Promise<boolean> {
    return this.s.add.run(...disconnectOpRows.values(op), op.instanceId).changes === 1;
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) this.removeAll(ids);
  }

  async ofInstance(instanceId: string): Promise<DisconnectOp[]> {
    return (this.s.ofInstance.all(instanceId) as DisconnectOpRow[]).map(disconnectOpRows.of);
  }

  async claimLapsed(claimer: string, now: number): Promise<number> {
    return this.claim(claimer, now);
  }
}
