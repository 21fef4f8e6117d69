/**
 * `cds index create | list | drop` and `cds query explain` (§15) on SQLite, the command's program run in this
 * process (`cdsInProcess`; cli.test.ts runs it as a process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cdsInProcess } from '../support/cli.js';

describe('cds index and cds query explain (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-index-cli-'));
  const cds = cdsInProcess(dataDir);
  const ok = async (...args: string[]) => {
    const result = await cds(...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('declares and builds an index, lists it, explains a query it serves, drops it', async () => {
    const project = String((await ok('project', 'create', '--org', 'o', '--name', 'idx', '--json')).project_id);
    const fields = [
      { field: 'stats__level', order: 'asc' },
      { field: 'name', order: 'desc' },
    ];
    const created = await ok(
      'index',
      'create',
      ...['--project', project, '--collection', 'items', '--field', 'stats__level', '--field', 'name:desc'],
    );
    expect(created).toEqual({ id: expect.any(Number), collection: 'items', fields, state: 'building' });
    // The command returned once the build had ended.
    expect(await ok('index', 'list', '--project', project, '--json')).toEqual({
      indexes: [{ ...created, state: 'ready' }],
    });
    const explain = [
      ...['query', 'explain', '--project', project, '--collection', 'items'],
      ...['--where', 'stats__level__exact:3', '--order-by', '-name', '--limit', '5'],
    ];
    const explained = await ok(...explain);
    expect(explained).toMatchObject({
      collection: 'items',
      index: { id: created.id, state: 'ready' },
      sought: ['stats__level__exact:3'],
      ordered: true,
    });
    expect(explained.plan.join('\n')).toContain(`cds_index_${created.id}`);
    expect(await ok('index', 'drop', '--project', project, '--id', String(created.id))).toEqual({
      deleted: created.id,
    });
    const again = await cds('index', 'drop', '--project', project, '--id', String(created.id));
    expect([again.code, again.stderr]).toEqual([1, 'cds: Index not found\n']);
    expect(await ok(...explain)).toMatchObject({ index: null, sought: [], ordered: false });
  });
});
