import type pg from 'pg';

/** A pool or a client: what runs one statement. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Opens a read-only transaction in which every statement sees the same commits. */
export const READ_SNAPSHOT = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * Runs `work` in one transaction on a client of the pool, commits it, and rolls back when it
 * throws. The transaction is opened by `begin`, or by `work` itself when `begin` is null (to send
 * its first statements with the BEGIN).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  begin: string | null = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    if (begin !== null) await client.query(begin);
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
