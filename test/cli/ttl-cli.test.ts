/** `cds ttl set | get | clear` (§17) on SQLite, the command's program run in this process (`cdsInProcess`). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cdsInProcess } from '../support/cli.js';

describe('cds ttl (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-ttl-cli-'));
  const cds = cdsInProcess(dataDir);
  const ok = async (...args: string[]) => {
    const result = await cds(...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('sets, shows and clears a TTL field, with the index built for the sweep', async () => {
    const project = String((await ok('project', 'create', '--org', 'o', '--name', 'ttl', '--json')).project_id);
    const where = ['--project', project, '--collection', 'codes'];
    expect(await ok('ttl', 'set', ...where, '--field', 'meta__until', '--json')).toEqual({
      collection: 'codes',
      field: 'meta__until',
    });
    expect(await ok('ttl', 'get', ...where)).toEqual({ collection: 'codes', field: 'meta__until' });
    expect(await ok('index', 'list', '--project', project)).toEqual({
      indexes: [
        {
          id: expect.any(Number),
          collection: 'codes',
          fields: [{ field: 'meta__until', order: 'asc' }],
          state: 'ready',
        },
      ],
    });
    expect(await ok('ttl', 'clear', ...where)).toEqual({ deleted: 'codes' });
    expect(await ok('index', 'list', '--project', project)).toEqual({ indexes: [] });
    const missing = await cds('ttl', 'get', ...where);
    expect([missing.code, missing.stderr]).toEqual([1, 'cds: TTL not set\n']);
    const bad = await cds('ttl', 'set', ...where, '--field', 'a____b');
    expect(bad.code).toBe(1);
    const stranger = await cds('ttl', 'get', '--project', '999', '--collection', 'codes');
    expect([stranger.code, stranger.stderr]).toEqual([1, 'cds: Project not found\n']);
  });
});
