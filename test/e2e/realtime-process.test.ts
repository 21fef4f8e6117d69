/** The real server process with a WebSocket subscriber: updates over the wire, 1001 on SIGTERM. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../support/server-process.js';
import { open } from '../support/ws-client.js';

const credential = (output: string, name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(output)?.[1] ?? '';

describe('the real server process with a realtime subscriber (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-e2e-rt-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers REST writes to a socket authenticated by query parameters, then closes it with 1001 on SIGTERM', async () => {
    server = await startServerProcess({ CDS_DATA_DIR: dataDir });
    const clientId = credential(server.output(), 'client_id');
    const clientSecret = credential(server.output(), 'client_secret');
    const client = { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'content-type': 'application/json' };
    const signup = await fetch(`${server.baseUrl}/auth/signup`, {
      method: 'POST',
      headers: client,
      body: JSON.stringify({ username: 'rt_player', password: 'long-enough-password' }),
    });
    const { access_token } = (await signup.json()) as { access_token: string };

    const query = new URLSearchParams({ client_id: clientId, client_secret: clientSecret, access_token });
    const ws = await open(`${server.baseUrl.replace('http', 'ws')}/realtime/ws?${query}`);
    expect(await ws.request({ action: 'subscribe', path: 'lobby', id: 1 })).toMatchObject({
      event: 'init',
      value: null,
    });
    const put = await fetch(`${server.baseUrl}/realtime/db/lobby/ann`, {
      method: 'PUT',
      headers: { ...client, authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ value: { ready: true } }),
    });
    expect(put.status).toBe(200);
    expect(await ws.waitFor((m) => m.event === 'update')).toMatchObject({ path: 'lobby/ann', value: { ready: true } });

    const exit = server.stop();
    expect((await ws.closed).code).toBe(1001);
    expect(await exit).toBe(0);
    // Secrets in the handshake's query string never reach the logs.
    expect(server.output().split(clientSecret)).toHaveLength(2);
    expect(server.output()).not.toContain(access_token);
    server = undefined;
  });
});
