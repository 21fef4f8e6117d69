/** Connection lifecycle (§4, §7): heartbeat drops dead sockets; shutdown closes every socket with 1001. */
import { describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';
import { startRealtimeApp } from '../support/realtime.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime connection lifecycle on ${engine.name}`, () => {
    it('pings every interval and drops a socket that stopped answering', async () => {
      const t = await startRealtimeApp(engine, { CDS_WS_PING_INTERVAL: '1' });
      try {
        const healthy = await t.socket();
        const dead = await t.socket();
        let pings = 0;
        healthy.ws.on('ping', () => {
          pings += 1;
        });
        await healthy.request({ action: 'subscribe', path: 'hb', id: 1 });
        // A paused socket reads nothing, so it never answers the server's pings.
        dead.ws.pause();
        const deadline = Date.now() + 5_000;
        while (t.app.realtime.connections > 1 && Date.now() < deadline) await sleep(50);
        expect(t.app.realtime.connections).toBe(1);
        expect(pings).toBeGreaterThanOrEqual(1);
        dead.ws.resume();
        expect((await dead.closed).code).toBe(1006);
        expect(await healthy.request({ action: 'subscribe', path: 'hb2', id: 2 })).toMatchObject({ event: 'init' });
        await healthy.close();
      } finally {
        await t.close();
      }
    });

    it('disconnects (1008) a user whose role no longer grants client.realtime', async () => {
      const t = await startRealtimeApp(engine);
      try {
        const ws = await t.socket();
        await ws.request({ action: 'subscribe', path: 'perm', id: 1 });
        const { accounts } = t.app.services;
        await accounts.createRole(t.project.projectId, 'docs_only', ['client.documents']);
        await accounts.setUserRoles(t.project.projectId, t.userId, ['docs_only']);
        const closed = await ws.closed;
        expect(closed).toEqual({ code: 1008, reason: "Permission 'client.realtime' required" });
      } finally {
        await t.close();
      }
    }, 15_000);

    it('closes every socket with 1001 when the app closes (SIGTERM)', async () => {
      const t = await startRealtimeApp(engine);
      const sockets = await Promise.all([t.socket(), t.socket(), t.socket(t.headers)]);
      await sockets[0]?.request({ action: 'subscribe', path: 'bye', id: 1 });
      const started = Date.now();
      await t.app.http.close();
      const codes = await Promise.all(sockets.map(async (s) => (await s.closed).code));
      expect(codes).toEqual([1001, 1001, 1001]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(t.app.realtime.connections).toBe(0);
      await t.close().catch(() => undefined);
    });
  });
}
