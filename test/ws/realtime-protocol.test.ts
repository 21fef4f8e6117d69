/** The WebSocket protocol of §4 through the real app on a loopback port, on every engine. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { connect, type ServerMessage, TestSocket } from '../support/ws-client.js';

const updates = (messages: ServerMessage[]) =>
  messages.filter((m) => m.event === 'update').map(({ path, value }) => ({ path, value }));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime WebSocket protocol (§4) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine, { CDS_REALTIME_MAX_SUBSCRIPTIONS: '4' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses the handshake before the upgrade with the §1 status and body', async () => {
      const before = t.app.realtime.connections;
      expect(await connect(t.wsUrl)).toEqual({ status: 401, body: { detail: 'Invalid client credentials' } });
      const badToken = await connect(t.wsUrl, { ...t.headers, authorization: 'Bearer nope' });
      expect(badToken).toEqual({ status: 401, body: { detail: 'Invalid or expired token' } });
      const { accounts } = t.app.services;
      await accounts.createRole(t.project.projectId, 'no_rt', ['client.documents']);
      const user = await accounts.createUser(t.project.projectId, {
        username: 'ws_no_rt',
        password: 'password-123',
        roles: ['no_rt'],
      });
      const { access_token } = await accounts.issueToken(t.project.projectId, user.id);
      const forbidden = await connect(t.wsUrl, { ...t.headers, authorization: `Bearer ${access_token}` });
      expect(forbidden).toEqual({ status: 403, body: { detail: "Permission 'client.realtime' required" } });
      expect(t.app.realtime.connections).toBe(before);
    });

    it('accepts the credentials as query parameters (browsers)', async () => {
      const query = new URLSearchParams({
        client_id: t.project.clientId,
        client_secret: t.project.clientSecret,
        access_token: t.token,
      });
      const socket = await connect(`${t.wsUrl}?${query}`);
      expect(socket).toBeInstanceOf(TestSocket);
      const ws = socket as TestSocket;
      expect(await ws.request({ action: 'subscribe', path: 'q', id: 1 })).toMatchObject({ event: 'init', path: 'q' });
      await ws.close();
    });

    it('answers subscribe with init, writes with ack, and sends updates with versions', async () => {
      const ws = await t.socket();
      const init = await ws.request({ action: 'subscribe', path: '/game//g1/', id: 'sub' });
      expect(init).toEqual({ event: 'init', path: 'game/g1', value: null, version: expect.any(Number), id: 'sub' });

      const ack = await ws.request({
        action: 'set',
        path: 'game/g1',
        value: { state: 'lobby', players: { a: 1 } },
        id: 7,
      });
      expect(ack).toEqual({ event: 'ack', action: 'set', path: 'game/g1', id: 7 });
      const update = await ws.waitFor((m) => m.event === 'update');
      expect(update).toEqual({
        event: 'update',
        path: 'game/g1',
        value: { state: 'lobby', players: { a: 1 } },
        version: (init.version ?? 0) + 1,
      });

      const from = ws.messages.length;
      await ws.request({ action: 'patch', path: 'game/g1', value: { 'players/b': 2, state: null }, id: 8 });
      await ws.waitForCount((m) => m.event === 'update', 3);
      expect(updates(ws.messages.slice(from))).toEqual([
        { path: 'game/g1/players/b', value: 2 },
        { path: 'game/g1/state', value: null },
      ]);

      await ws.request({ action: 'delete', path: 'game/g1/players/a', id: 9 });
      await ws.waitForCount((m) => m.event === 'update', 4);
      expect(ws.events('update').at(-1)).toMatchObject({ path: 'game/g1/players/a', value: null });
      expect(ws.copy).toEqual({ game: { g1: { players: { b: 2 } } } });
      await ws.close();
    });

    it('an ancestor write sends the subscribed path and its new value; a write beside sends nothing', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'w/x/y', id: 1 });
      const writer = await t.socket();
      await writer.request({ action: 'set', path: 'w/other', value: 1, id: 1 });
      await writer.request({ action: 'set', path: 'w', value: { x: { y: { z: 5 } }, q: 1 }, id: 2 });
      await writer.request({ action: 'set', path: 'w', value: 'leaf', id: 3 });
      await writer.request({ action: 'patch', path: 'w', value: { 'x/y': 7, r: 2 }, id: 4 });
      await ws.waitForCount((m) => m.event === 'update', 3);
      await writer.request({ action: 'set', path: 'w/x/y', value: 'last', id: 5 });
      await ws.waitForCount((m) => m.event === 'update', 4);
      expect(updates(ws.messages)).toEqual([
        { path: 'w/x/y', value: { z: 5 } },
        { path: 'w/x/y', value: null },
        { path: 'w/x/y', value: 7 },
        { path: 'w/x/y', value: 'last' },
      ]);
      await Promise.all([ws.close(), writer.close()]);
    });

    it('answers bad messages with error events and keeps the connection open', async () => {
      const ws = await t.socket();
      const cases: [Record<string, unknown> | string, string][] = [
        ['{not json', 'Invalid JSON'],
        [{ action: 'fly', path: 'a', id: 1 }, "Unknown action 'fly'"],
        [{ action: 'subscribe', id: 2 }, 'path is required'],
        [{ action: 'subscribe', path: 'a/../b', id: 3 }, 'Invalid path segment'],
        [{ action: 'set', path: 'a', id: 4 }, 'value is required'],
        [{ action: 'patch', path: 'a', value: 5, id: 5 }, 'value must be an object'],
        [{ action: 'patch', path: 'a', value: { b: 1, 'b/c': 2 }, id: 6 }, "Patch keys 'b' and 'b/c' overlap"],
        [{ action: 'set', path: 'a', value: { 'x/y': 1 }, id: 7 }, "Invalid key 'x/y'"],
      ];
      for (const [message, error] of cases) {
        const from = ws.messages.length;
        if (typeof message === 'string') ws.ws.send(message);
        else ws.send(message);
        const reply = await ws.waitFor((m) => m.event === 'error', { from });
        expect(reply.message).toContain(error);
        if (typeof message !== 'string' && message.id !== undefined) expect(reply.id).toBe(message.id);
      }
      expect(await ws.request({ action: 'subscribe', path: 'still/open', id: 'ok' })).toMatchObject({ event: 'init' });
      await ws.close();
    });

    it('limits subscriptions per connection (configurable); resubscribing does not count twice', async () => {
      const ws = await t.socket();
      for (let i = 0; i < 4; i++) await ws.request({ action: 'subscribe', path: `lim/${i}`, id: i });
      expect(await ws.request({ action: 'subscribe', path: 'lim/0', id: 'again' })).toMatchObject({ event: 'init' });
      const refused = await ws.request({ action: 'subscribe', path: 'lim/4', id: 'over' });
      expect(refused).toEqual({ event: 'error', message: 'Too many subscriptions (max 4)', id: 'over' });
      expect(await ws.request({ action: 'unsubscribe', path: 'lim/1', id: 'u' })).toEqual({
        event: 'ack',
        action: 'unsubscribe',
        path: 'lim/1',
        id: 'u',
      });
      expect(await ws.request({ action: 'subscribe', path: 'lim/4', id: 'now' })).toMatchObject({ event: 'init' });
      await ws.close();
    });

    it('stops updates after unsubscribe', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'u', id: 1 });
      await ws.request({ action: 'set', path: 'u/a', value: 1, id: 2 });
      await ws.waitForCount((m) => m.event === 'update', 1);
      await ws.request({ action: 'unsubscribe', path: 'u', id: 3 });
      await ws.request({ action: 'set', path: 'u/a', value: 2, id: 4 });
      await ws.request({ action: 'subscribe', path: 'elsewhere', id: 5 });
      expect(ws.events('update')).toHaveLength(1);
      await ws.close();
    });

    it('REST writes reach WebSocket subscribers too', async () => {
      const ws = await t.socket();
      await ws.request({ action: 'subscribe', path: 'rest', id: 1 });
      const res = await t.app.http.inject({
        method: 'PATCH',
        url: '/realtime/db/rest',
        headers: t.headers,
        payload: { value: { a: 1, b: 2 } },
      });
      expect(res.statusCode).toBe(200);
      await ws.waitForCount((m) => m.event === 'update', 2);
      expect(ws.copy).toEqual({ rest: { a: 1, b: 2 } });
      await ws.close();
    });

    it('closes a connection whose message exceeds the payload limit (1009)', async () => {
      const ws = await t.socket();
      ws.send({ action: 'set', path: 'big', value: 'x'.repeat(1024 * 1024 + 10) });
      expect((await ws.closed).code).toBe(1009);
    });
  });
}
