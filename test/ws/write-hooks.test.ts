/**
 * The `realtime.write` before hook (§16) over the socket: a rejected write answers an `error` event
 * with `status` and `message` and writes nothing, a replacement is what subscribers receive, and
 * the connection's writes keep their order behind a hook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, reject } from '../../src/functions/index.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

const functions = FunctionRegistry.of([
  {
    file: 'socket-hooks.ts',
    definition: defineFunctions({
      projects: '*',
      before: {
        'realtime.write': async (_ctx, write) => {
          if (write.path === 'walls/secret') reject(403, 'Not here');
          if (write.path === 'walls/slow') await new Promise((resolve) => setTimeout(resolve, 50));
          if (typeof write.value === 'string') return write.value.toUpperCase();
          return undefined;
        },
      },
    }),
  },
]);

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime.write hook over the socket (§16) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    beforeAll(async () => {
      t = await startRealtimeApp(engine, {}, { functions });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers a rejected write with error {status, message}, and writes a replacement in order', async () => {
      const socket = await t.socket();
      try {
        expect(await socket.request({ action: 'set', id: 1, path: 'walls/secret', value: 'x' })).toEqual({
          event: 'error',
          id: 1,
          status: 403,
          message: 'Not here',
        });
        expect((await t.app.services.tree.get(t.project.projectId, 'walls/secret')).value).toBeNull();
        // The slow hook's write is placed before the next one: the last write wins in message order.
        socket.send({ action: 'set', id: 2, path: 'walls/slow', value: 'first' });
        expect(await socket.request({ action: 'set', id: 3, path: 'walls/slow', value: 'second' })).toMatchObject({
          id: 3,
        });
        const all = await socket.request({ action: 'set', id: 4, path: 'walls/plain', value: 'shout' });
        expect(all).toMatchObject({ id: 4 });
        expect((await t.app.services.tree.get(t.project.projectId, 'walls')).value).toEqual({
          slow: 'SECOND',
          plain: 'SHOUT',
        });
      } finally {
        await socket.close();
      }
    });
  });
}
