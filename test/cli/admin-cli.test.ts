/**
 * `cds admin create` (§6, §7) against a temporary SQLite data directory, the command's program run in this
 * process (`cdsInProcess`; cli.test.ts runs it as a process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { cdsInProcess } from '../support/cli.js';

describe('cds admin create (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-admin-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const cds = cdsInProcess(dataDir);
  let orgId = 0;

  it('creates an admin and prints exactly {id, org_id, email, role} with --json', async () => {
    const project = JSON.parse((await cds('project', 'create', '--org', 'acme', '--name', 'game', '--json')).stdout);
    orgId = project.org_id;
    const result = await cds(
      'admin',
      'create',
      '--org',
      String(orgId),
      '--email',
      'Boss@Acme.example',
      '--password',
      'boss-password',
      '--role',
      'owner',
      '--json',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 1, org_id: orgId, email: 'boss@acme.example', role: 'owner' });
    const human = await cds(
      'admin',
      'create',
      '--org',
      String(orgId),
      '--email',
      'viewer@acme.example',
      '--password',
      'viewer-password',
      '--role',
      'viewer',
    );
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe(`Created viewer admin 2 (viewer@acme.example) in organisation ${orgId}.`);
  });

  it('the created admin signs in to the running service', async () => {
    const app = await buildApp(loadConfig({ CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent' }));
    try {
      const login = await app.http.inject({
        method: 'POST',
        url: '/admin/auth/login',
        payload: { email: 'boss@acme.example', password: 'boss-password' },
      });
      expect(login.statusCode).toBe(200);
      const me = await app.http.inject({
        method: 'GET',
        url: '/admin/me',
        headers: { authorization: `Bearer ${login.json().access_token}` },
      });
      expect(me.json()).toMatchObject({ org_id: orgId, role: 'owner' });
    } finally {
      await app.close();
    }
  });

  it.each([
    [['--org', '999', '--email', 'x@y.z', '--password', 'password-1', '--role', 'owner'], /Organisation not found/],
    [
      ['--org', '1', '--email', 'BOSS@acme.example', '--password', 'password-1', '--role', 'owner'],
      /Email already registered/,
    ],
    [
      ['--org', '1', '--email', 'short@y.z', '--password', 'short', '--role', 'editor'],
      /password must be at least 8 characters/,
    ],
    [
      ['--org', '1', '--email', 'not-an-email', '--password', 'password-1', '--role', 'editor'],
      /email must be an email address/,
    ],
    [
      ['--org', '1', '--email', 'r@y.z', '--password', 'password-1', '--role', 'admin'],
      /Allowed choices are owner, editor, viewer/,
    ],
    [['--org', 'one', '--email', 'r@y.z', '--password', 'password-1', '--role', 'owner'], /positive integer/],
    [['--org', '1', '--email', 'r@y.z', '--password', 'password-1'], /--role/],
  ])('fails with a message and exit code 1: %j', async (args, message) => {
    const result = await cds('admin', 'create', ...args, '--json');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
