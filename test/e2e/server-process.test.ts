import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';

const credential = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

describe('the real server process (SQLite, over HTTP)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-e2e-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('bootstraps once, then serves signup → document CRUD → query, and drains on SIGTERM', async () => {
    server = await startServerProcess({ CDS_DATA_DIR: dataDir });
    const clientId = credential(server.output(), 'client_id');
    const clientSecret = credential(server.output(), 'client_secret');
    expect(clientId).not.toBe('');
    expect(clientSecret).not.toBe('');

    const client = { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'content-type': 'application/json' };
    const signup = await fetch(`${server.baseUrl}/auth/signup`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ username: 'e2e_player', password: 'long-enough-password' }),
    });
    expect(signup.status).toBe(201);
    const { access_token } = (await signup.json()) as { access_token: string };
    const headers = { ...client, authorization: `Bearer ${access_token}` };
    const request = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server?.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    expect((await request('PUT', '/documents/docs/scores/s1', { data: { points: 10 } })).status).toBe(200);
    expect((await request('POST', '/documents/collections/scores', { data: { points: 30 } })).status).toBe(201);
    expect((await request('PATCH', '/documents/docs/scores/s1', { data: { points: 20 } })).body.data).toEqual({
      points: 20,
    });
    const query = await request('GET', '/documents/query/scores?where=points__gte:15&order_by=-points');
    expect((query.body.documents as { data: { points: number } }[]).map((d) => d.data.points)).toEqual([30, 20]);
    expect((await request('DELETE', '/documents/docs/scores/s1')).body).toEqual({ deleted: 'scores/s1' });
    expect((await request('GET', '/documents/docs/scores/s1')).status).toBe(404);

    // The secret is printed once by the first-start message, never by the request logs.
    expect(server.output().split(clientSecret)).toHaveLength(2);
    expect(server.output()).not.toContain(access_token);
    expect(await server.stop()).toBe(0);
    server = undefined;

    const again = await startServerProcess({ CDS_DATA_DIR: dataDir });
    server = again;
    expect(again.output()).not.toContain('client_secret');
    const stillThere = await fetch(`${again.baseUrl}/documents/query/scores`, { headers });
    expect(stillThere.status).toBe(200);
    expect(((await stillThere.json()) as { documents: unknown[] }).documents).toHaveLength(1);
  });
});
