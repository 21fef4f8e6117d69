/**
 * The schedules' last ticks on PostgreSQL (§16): one statement each. A claim is an UPDATE that
 * moves `last_tick` only forward: of instances claiming one tick at once, the row lock lets one
 * move it and the others, re-checking the condition once it is released, find nothing to update.
 */
import type pg from 'pg';
import type { ScheduleStore } from '../../core/functions/schedule-store.js';

const BEGIN = `INSERT INTO schedule_runs (project_id, schedule, last_tick) VALUES ($1, $2, $3)
  ON CONFLICT (project_id, schedule) DO NOTHING`;
const CLAIM = 'UPDATE schedule_runs SET last_tick = $3 WHERE project_id = $1 AND schedule = $2 AND last_tick < $3';

/** The `schedule_runs` table of a PostgreSQL database. */
export class PostgresScheduleStore implements ScheduleStore {
  constructor(private readonly pool: pg.Pool) {}

  async projectIds(): Promise<number[]> {
    const { rows } = await this.pool.query<{ id: number }>('SELECT id FROM projects ORDER BY id');
    return rows.map((row) => row.id);
  }

  async begin(projectId: number, schedule: string, tick: number): Promise<void> {
    await this.pool.query(BEGIN, [projectId, schedule, tick]);
  }

  async claim(projectId: number, schedule: string, tick: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(CLAIM, [projectId, schedule, tick]);
    return rowCount === 1;
  }
}
