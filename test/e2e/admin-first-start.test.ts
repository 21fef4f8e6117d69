/** First start (§7): the real process creates an owner admin, prints its login once, and it works over HTTP. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printedOwner, type ServerProcess, startServerProcess } from '../support/server-process.js';

const printed = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

describe('first start creates an owner admin (SQLite, real process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-e2e-admin-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the admin login once; the admin manages the first project; later starts print nothing', async () => {
    server = await startServerProcess({ CDS_DATA_DIR: dataDir });
    const output = server.output();
    // One line scripts can parse (§7): `owner: <email> <password>`.
    const { email, password } = printedOwner(output);
    const orgId = Number(printed(output, 'org_id'));
    const projectId = Number(printed(output, 'project_id'));
    expect(email).toBe('admin@localhost');
    expect(password.length).toBeGreaterThanOrEqual(20);

    const login = await fetch(`${server.baseUrl}/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
    const { access_token } = (await login.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };

    const me = await fetch(`${server.baseUrl}/admin/me`, { headers });
    expect(await me.json()).toMatchObject({ email, org_id: orgId, role: 'owner' });
    const put = await fetch(`${server.baseUrl}/document-store/${orgId}/${projectId}/docs/config/game`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ data: { motd: 'hello' } }),
    });
    expect(put.status).toBe(200);
    const names = await fetch(`${server.baseUrl}/document-store/${orgId}/${projectId}/collections`, { headers });
    expect(await names.json()).toEqual({ collections: ['config'], page: 1, page_size: 20, total: 1 });

    // Printed by the first-start message only: never by the request logs.
    expect(server.output().split(password)).toHaveLength(2);
    expect(server.output()).not.toContain(access_token);
    expect(await server.stop()).toBe(0);
    server = undefined;

    server = await startServerProcess({ CDS_DATA_DIR: dataDir });
    expect(server.output()).not.toMatch(/^owner: /m);
    const again = await fetch(`${server.baseUrl}/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(again.status).toBe(200);
  });
});
