/**
 * The schedules' last ticks on SQLite (§16): one statement each. A claim is an upsert that moves
 * `last_tick` only forward; the one writer at a time makes it a compare-and-set across the
 * connections of every instance on the file.
 */
import type Database from 'better-sqlite3';
import type { ScheduleStore } from '../../core/functions/schedule-store.js';

const SQL = {
  projectIds: 'SELECT id FROM projects ORDER BY id',
  begin: `INSERT INTO schedule_runs (project_id, schedule, last_tick) VALUES (?, ?, ?)
    ON CONFLICT (project_id, schedule) DO NOTHING`,
  claim: 'UPDATE schedule_runs SET last_tick = ? WHERE project_id = ? AND schedule = ? AND last_tick < ?',
};

/** The `schedule_runs` table of an embedded database. */
export class SqliteScheduleStore implements ScheduleStore {
  private readonly s: { [K in keyof typeof SQL]: Database.Statement };

  constructor(db: Database.Database) {
    this.s = Object.fromEntries(Object.entries(SQL).map(([key, sql]) => [key, db.prepare(sql)])) as {
      [K in keyof typeof SQL]: Database.Statement;
    };
  }

  async projectIds(): Promise<number[]> {
    return (this.s.projectIds.all() as { id: number }[]).map((row) => row.id);
  }

  async begin(projectId: number, schedule: string, tick: number): Promise<void> {
    this.s.begin.run(projectId, schedule, tick);
  }

  async claim(projectId: number, schedule: string, tick: number): Promise<boolean> {
    return this.s.claim.run(tick, projectId, schedule, tick).changes === 1;
  }
}
