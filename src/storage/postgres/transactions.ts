import type pg from 'pg';

/** A pool or a client: what runs one statement. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Opens a read-only transaction in which every statement sees the same commits. */
export const READ_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** Runs `work` in one transaction (opened by `begin`) on a client of the pool; rolls back when it throws. */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
