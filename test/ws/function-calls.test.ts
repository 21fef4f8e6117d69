/**
 * Server functions over the socket (§16): `call` answers `result`, or `error` with the status
 * `POST /functions/{name}` would answer; a slow function does not hold up the connection's other
 * messages; a player needs `client.functions`; an admin's socket may not call, a server key's may.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, reject } from '../../src/functions/index.js';
import { createAdmin, orgOf } from '../support/admin.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { open } from '../support/ws-client.js';

const functions = FunctionRegistry.of([
  {
    file: 'socket.ts',
    definition: defineFunctions({
      projects: '*',
      rpc: {
        echo: (_ctx, input) => input,
        caller: (ctx) => ctx.caller,
        refuse: () => reject(402, 'Pay first'),
        slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 300)),
      },
    }),
  },
]);

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`call over the socket (§16) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine, {}, { functions });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers result with the function’s value, and error with the HTTP status and message', async () => {
      const socket = await t.socket();
      try {
        expect(await socket.request({ action: 'call', id: 1, name: 'echo', input: { a: [1] } })).toEqual({
          event: 'result',
          id: 1,
          result: { a: [1] },
        });
        expect(await socket.request({ action: 'call', id: 2, name: 'echo' })).toEqual({
          event: 'result',
          id: 2,
          result: null,
        });
        expect(await socket.request({ action: 'call', id: 3, name: 'caller' })).toMatchObject({
          result: { user_id: t.userId, roles: ['player'] },
        });
        expect(await socket.request({ action: 'call', id: 4, name: 'refuse' })).toEqual({
          event: 'error',
          id: 4,
          status: 402,
          message: 'Pay first',
        });
        expect(await socket.request({ action: 'call', id: 5, name: 'missing' })).toEqual({
          event: 'error',
          id: 5,
          status: 404,
          message: 'Function not found',
        });
        expect(await socket.request({ action: 'call', id: 6 })).toMatchObject({
          event: 'error',
          message: 'name is required',
        });
      } finally {
        await socket.close();
      }
    });

    it('does not hold up the connection’s next messages while a function runs', async () => {
      const socket = await t.socket();
      try {
        socket.send({ action: 'call', id: 'slow', name: 'slow' });
        const subscribed = await socket.request({ action: 'subscribe', id: 'sub', path: 'anything' });
        expect(subscribed.event).toBe('init');
        expect(socket.messages.some((m) => m.id === 'slow')).toBe(false);
        expect(await socket.waitFor((m) => m.id === 'slow')).toEqual({ event: 'result', id: 'slow', result: 'late' });
      } finally {
        await socket.close();
      }
    });

    it('needs client.functions from a player; refuses an admin, takes a server key', async () => {
      const { projectId } = t.project;
      await t.app.services.accounts.createRole(projectId, 'reader', ['client.realtime']);
      const reader = await t.app.services.accounts.createUser(projectId, {
        username: 'reader',
        password: 'password-123',
        roles: ['reader'],
      });
      const token = (await t.app.services.auth.issueAccessToken(projectId, reader.id)).access_token;
      const socket = await t.socket({ ...t.headers, authorization: `Bearer ${token}` });
      try {
        expect(await socket.request({ action: 'call', id: 1, name: 'missing' })).toEqual({
          event: 'error',
          id: 1,
          status: 403,
          message: "Permission 'client.functions' required",
        });
      } finally {
        await socket.close();
      }
      const { key, id } = await t.app.services.serverKeys.create(projectId, { name: 'game', role: 'viewer' });
      const adminUrl = t.wsUrl.replace('/realtime/ws', `/admin/projects/${projectId}/realtime/ws`);
      const server = await open(adminUrl, { authorization: `Bearer ${key}` });
      try {
        expect(await server.request({ action: 'call', id: 1, name: 'caller' })).toEqual({
          event: 'result',
          id: 1,
          result: { server_key: id },
        });
      } finally {
        await server.close();
      }
      const owner = await createAdmin(t, await orgOf(t, projectId), 'owner');
      const admin = await open(adminUrl, { authorization: `Bearer ${owner.token}` });
      try {
        expect(await admin.request({ action: 'call', id: 1, name: 'caller' })).toEqual({
          event: 'error',
          id: 1,
          status: 403,
          message: 'Server functions are called by players and server keys',
        });
      } finally {
        await admin.close();
      }
    });
  });
}
