/** `cds export` and `cds import` as real processes on the embedded engine (SQLite in a data directory). */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OPEN_RULESET } from '../../src/core/rules/ruleset.js';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'cds-cli-transfer-'));
const env = { ...process.env, CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent', DATABASE_URL: '' };
const cds = (...args: string[]) => run(process.execPath, ['bin/cds.js', ...args], { env, maxBuffer: 64 * 1024 * 1024 });

describe('cds export / cds import', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('exports a project to stdout and imports it into another, all or nothing', { timeout: 60_000 }, async () => {
    const a = JSON.parse((await cds('project', 'create', '--org', 'o', '--name', 'a', '--json')).stdout);
    const b = JSON.parse((await cds('project', 'create', '--org', 'o', '--name', 'b', '--json')).stdout);
    await cds('user', 'create', '--project', String(a.project_id), '--username', 'ann', '--password', 'password-123');
    const exported = JSON.parse((await cds('export', '--project', String(a.project_id))).stdout);
    expect(exported).toMatchObject({
      format: 'cds-export',
      version: 1,
      users: [{ username: 'ann', roles: ['player'] }],
    });
    exported.documents.push({ path: 'notes/n1', data: { text: 'hi' } });
    const file = join(dataDir, 'export.json');
    writeFileSync(file, JSON.stringify(exported));
    const imported = JSON.parse((await cds('import', '--project', String(b.project_id), file, '--json')).stdout);
    expect(imported.imported).toMatchObject({ documents: 1, users: 1 });
    const again = JSON.parse((await cds('export', '--project', String(b.project_id))).stdout);
    // `rules: null` (never set) imports as the open ruleset, set as a revision (§9).
    expect(again).toEqual({ ...exported, rules: OPEN_RULESET });

    exported.users.push({ id: 1, username: 'dup', nickname: 'dup', avatar_url: null, roles: [] });
    writeFileSync(file, JSON.stringify(exported));
    const failed = await cds('import', '--project', String(b.project_id), file).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stderr: string }).stderr).toMatch(/Invalid import: users\[1\]\.id: duplicate user id 1/);
  });
});
