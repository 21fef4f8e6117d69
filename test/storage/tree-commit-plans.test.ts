/**
 * Query plans of the PostgreSQL tree commit over 100,000 leaves: a batch of 50 writes finds what
 * it deletes and reads by index lookups, never by scanning the leaves table, even under the
 * generic plan a prepared statement ends up with (the arrays' sizes unknown to the planner); and
 * the function's statements are never compiled with JIT, which that plan's estimates over a large
 * tree would otherwise ask for.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { postgresTreeCommitSql } from '../../src/storage/postgres/tree-commit.js';
import { freshSchema, type TestSchema } from '../support/cluster.js';
import { postgresEngine, TEST_DATABASE_URL } from '../support/engines.js';

const N = 50;
const ids = Array.from({ length: N }, (_, i) => i);

/** Plan lines of scans over `table` that ran (a branch never executed costs nothing). */
const executedScans = (plan: string[], table: string) =>
  plan.filter((line) => line.includes(`Seq Scan on ${table}`) && !line.includes('never executed'));

describe.skipIf(postgresEngine.unavailable)('PostgreSQL tree commit plans', () => {
  let schema: TestSchema;
  let client: pg.Client;
  beforeAll(async () => {
    schema = freshSchema();
    // Opening the storage migrates the schema.
    const storage = await PostgresStorage.open({
      connectionString: TEST_DATABASE_URL,
      schema: schema.name,
      poolSize: 1,
    });
    await storage.close();
    client = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema.name}` });
    await client.connect();
    await client.query(`INSERT INTO tree_leaves (project_id, path, value)
      SELECT 1, 'rooms/r' || (i / 10) || '/k' || (i % 10), to_jsonb(i) FROM generate_series(1, 100000) i`);
    await client.query(`INSERT INTO tree_leaves (project_id, path, value)
      SELECT 1, 'players/p' || i || '/' || k, '1' FROM generate_series(0, ${N - 1}) i, unnest(array['a', 'b']) k`);
    await client.query(`INSERT INTO tree_changes (project_id, version, seq, path, value)
      SELECT 1, v, 0, 'rooms', '1' FROM generate_series(1, 5000) v`);
    await client.query(`INSERT INTO tree_versions (project_id, version, log_floor) VALUES (1, 5000, 0)`);
    await client.query('ANALYZE');
    await client.query('SET plan_cache_mode = force_generic_plan');
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await schema?.drop();
  });

  const explain = async (sql: string, values: unknown[]) => {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) ${sql}`, values);
      const plan = rows.map((row) => row['QUERY PLAN']);
      console.log(plan.join('\n'));
      return plan;
    } finally {
      await client.query('ROLLBACK');
    }
  };

  /** Both commit statements' leaf and change-log parameters for 50 PUTs, versions from `first`. */
  const batchOf50 = (first: number): unknown[] => [
    [1, 1, ...ids.map(() => 1)],
    ['', 'players', ...ids.map((i) => `players/p${i}`)],
    ids.map(() => 1),
    ids.map((i) => `players/p${i}/`),
    ids.map((i) => `players/p${i}0`),
    [],
    ids.map(() => 1),
    ids.map((i) => `players/p${i}/x`),
    ids.map(() => '1'),
    ids.map(() => 1),
    ids.map((i) => first + i),
    ids.map(() => 0),
    ids.map((i) => `players/p${i}`),
    ids.map(() => '{"x":1}'),
  ];

  it('writes a batch of 50 PUTs without scanning the leaves or the change log', async () => {
    const plan = await explain(postgresTreeCommitSql.writeCommit, [
      ...batchOf50(5001),
      [1],
      [5000 + N],
      [0],
      [5001],
      1000,
      600_000,
    ]);
    expect(executedScans(plan, 'tree_leaves')).toEqual([]);
    expect(executedScans(plan, 'tree_changes')).toEqual([]);
  });

  /**
   * Runs `body` in a transaction rolled back after it, collecting the plan of each statement it
   * runs, the function's own included: auto_explain sends each to this client as a LOG notice.
   */
  const explained = async <T>(
    settings: string[],
    body: () => Promise<T>,
    connection: pg.Client = client,
  ): Promise<{ result: T; plans: string[] }> => {
    const plans: string[] = [];
    const onNotice = (notice: { message?: string }) => plans.push(notice.message ?? '');
    connection.on('notice', onNotice);
    await connection.query('BEGIN');
    try {
      await connection.query(`LOAD 'auto_explain'`);
      for (const setting of [
        'auto_explain.log_min_duration = 0',
        'auto_explain.log_analyze = on',
        'auto_explain.log_nested_statements = on',
        'client_min_messages = log',
        ...settings,
      ])
        await connection.query(`SET LOCAL ${setting}`);
      return { result: await body(), plans };
    } finally {
      await connection.query('ROLLBACK');
      connection.off('notice', onNotice);
    }
  };

  const commit50 = (connection: pg.Client = client) =>
    connection.query<{ locked_project: number; base: string }>(
      `SELECT * FROM cds_tree_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [...batchOf50(1), [1], [N], 1000, 600_000],
    );

  it('commits 50 PUTs in one call of cds_tree_commit without scanning the leaves or the change log', async () => {
    const { result, plans } = await explained([], commit50);
    expect(result.rows).toEqual([{ locked_project: 1, base: '5000' }]);
    const plan = plans.join('\n').split('\n');
    console.log(plan.join('\n'));
    expect(plan.some((line) => line.includes('tree_leaves'))).toBe(true);
    expect(executedScans(plan, 'tree_leaves')).toEqual([]);
    expect(executedScans(plan, 'tree_changes')).toEqual([]);
  });

  it('compiles none of the statements of cds_tree_commit with JIT, even when every plan would qualify', async () => {
    const { rows: jit } = await client.query<{ available: boolean }>('SELECT pg_jit_available() AS available');
    // Whether a plan is compiled is decided when it is planned: the function's plans cached by the
    // tests before must be made again under this threshold.
    await client.query('DISCARD PLANS');
    const { plans } = await explained(['jit_above_cost = 0'], async () => {
      await client.query(`SELECT count(*) FROM tree_leaves WHERE path > 'rooms/r5'`);
      await commit50();
    });
    // A compiled plan reports its "JIT:" timings.
    const [outside, ...inside] = plans.filter((plan) => !plan.includes('FROM cds_tree_commit('));
    // The statement outside the function shows that this server compiles whatever it is allowed to.
    expect(outside?.includes('JIT:')).toBe(jit[0]?.available);
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.filter((plan) => plan.includes('JIT:'))).toEqual([]);
  });

  it('runs the statements of cds_tree_commit on their generic plan, whatever the session asks for', async () => {
    // A custom plan is made anew at each call, with the call's arrays written into it as constants;
    // the generic plan, made once per connection, refers to the function's parameters.
    const { plans } = await explained(
      ['plan_cache_mode = force_custom_plan', 'auto_explain.log_verbose = on'],
      commit50,
    );
    const inside = plans.filter((plan) => !plan.includes('FROM cds_tree_commit('));
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.some((plan) => plan.includes('p_ins_path'))).toBe(true);
    expect(inside.filter((plan) => plan.includes('players/p0'))).toEqual([]);
  });

  it('keeps to lookups by key and by ctid in the plan a connection made while the tables were small', async () => {
    const empty = freshSchema();
    const storage = await PostgresStorage.open({
      connectionString: TEST_DATABASE_URL,
      schema: empty.name,
      poolSize: 1,
    });
    await storage.close();
    const fresh = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${empty.name}` });
    await fresh.connect();
    try {
      // Statistics of tables holding one commit; the next call plans the function's statements on
      // them, and the plans stay with the connection while the tables grow.
      await commit50(fresh);
      await fresh.query('ANALYZE tree_leaves, tree_changes, tree_versions');
      await commit50(fresh);
      await fresh.query(`INSERT INTO tree_leaves (project_id, path, value)
        SELECT 1, 'rooms/r' || (i / 10) || '/k' || (i % 10), to_jsonb(i) FROM generate_series(1, 100000) i`);
      await fresh.query(`INSERT INTO tree_changes (project_id, version, seq, path, value)
        SELECT 1, v, 0, 'rooms', '1' FROM generate_series(${2 * N + 1}, 5000) v`);
      await fresh.query('UPDATE tree_versions SET version = 5000');
      const { plans } = await explained([], () => commit50(fresh), fresh);
      const plan = plans.join('\n').split('\n');
      expect(plan.some((line) => line.includes('tree_changes'))).toBe(true);
      expect(executedScans(plan, 'tree_leaves')).toEqual([]);
      expect(executedScans(plan, 'tree_changes')).toEqual([]);
      expect(executedScans(plan, 'tree_versions')).toEqual([]);
      // A bitmap reads every match before the first: the log's age check wants only its oldest entry.
      expect(plan.filter((line) => line.includes('Bitmap Heap Scan') && !line.includes('never executed'))).toEqual([]);
    } finally {
      await fresh.end();
      await empty.drop();
    }
  });

  it('reads the subtrees of 50 writes by index lookups', async () => {
    const plan = await explain(postgresTreeCommitSql.readSubtrees, [
      ids.map(() => 1),
      ids.map((i) => `players/p${i}`),
      ids.map((i) => `players/p${i}/`),
      ids.map((i) => `players/p${i}0`),
    ]);
    expect(executedScans(plan, 'tree_leaves')).toEqual([]);
  });
});
