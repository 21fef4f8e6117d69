/**
 * On-disconnect writes over the socket (§17) on every engine: stored with `on_disconnect` and
 * acked, run when the connection ends (a client's close, a close by the server, the app's
 * shutdown) as ordinary tree writes seen by subscribers, in the order stored, with `.sv` values
 * resolved when they run; `cancel` at or below a path; the 64 limit; bad input; the rules when
 * stored and when run (with the auth of when it was stored); admin sockets; a client's own ping.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOO_MANY_DISCONNECT_OPS } from '../../src/core/realtime/connection-ops.js';
import { TEST_JWT_SECRET } from '../support/app.js';
import { engines } from '../support/engines.js';
import { freshProject, type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { MemoryRulesSource } from '../support/rules.js';
import { open, type TestSocket } from '../support/ws-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`on-disconnect writes (§17) on ${engine.name}`, () => {
    let shared: RealtimeTestApp;
    const rules = new MemoryRulesSource();

    beforeAll(async () => {
      shared = await startRealtimeApp(engine, {}, { rules });
    });
    afterAll(async () => {
      await shared?.close();
    });

    const read = async (t: RealtimeTestApp, path: string) =>
      (await t.app.services.tree.get(t.project.projectId, path)).value;
    /** Closes `socket` from the client and waits until the server has run the connection's ops. */
    const closeAndRun = async (t: RealtimeTestApp, socket: TestSocket) => {
      const before = t.app.realtime.connections;
      await socket.close();
      for (let i = 0; i < 200 && t.app.realtime.connections >= before; i++) await sleep(10);
      await t.app.services.disconnectOps.settled();
    };

    it('acks a stored write and runs it when the client closes, seen by subscribers as a write', async () => {
      const t = await freshProject(shared);
      const watcher = await t.socket();
      await watcher.request({ action: 'subscribe', path: 'rooms', id: 'w' });
      const player = await t.socket();
      await player.request({ action: 'set', path: 'rooms/r1/ann', value: { online: true }, id: 1 });
      const ack = await player.request({ action: 'on_disconnect', op: 'delete', path: '/rooms//r1/ann/', id: 'od' });
      expect(ack).toEqual({ event: 'ack', action: 'on_disconnect', path: 'rooms/r1/ann', id: 'od' });
      expect(await read(t, 'rooms/r1/ann')).toEqual({ online: true });
      await closeAndRun(t, player);
      expect(await read(t, 'rooms/r1/ann')).toBeNull();
      const update = await watcher.waitFor(
        (m) => m.event === 'update' && m.path === 'rooms/r1/ann' && m.value === null,
      );
      expect(update.version).toEqual(expect.any(Number));
      await watcher.close();
    });

    it('runs the ops in the order stored, each with its server values resolved when it runs', async () => {
      const t = await freshProject(shared);
      const player = await t.socket();
      const ops = [
        { op: 'set', path: 'p/a', value: { n: 1, at: { '.sv': 'timestamp' } } },
        { op: 'patch', path: 'p', value: { 'a/n': 2, b: 'x' } },
        { op: 'set', path: 'p/c', value: { '.sv': { increment: 5 } } },
        { op: 'delete', path: 'p/b' },
      ];
      for (const [i, op] of ops.entries()) {
        expect((await player.request({ action: 'on_disconnect', ...op, id: i })).event).toBe('ack');
      }
      await sleep(30);
      const closedAt = Date.now();
      await closeAndRun(t, player);
      const value = (await read(t, 'p')) as { a: { n: number; at: number }; c: number };
      expect(value).toEqual({ a: { n: 2, at: expect.any(Number) }, c: 5 });
      expect(value.a.at).toBeGreaterThanOrEqual(closedAt);
    });

    it('cancels every op at or below a path, and only those', async () => {
      const t = await freshProject(shared);
      const player = await t.socket();
      for (const [i, path] of ['game/a', 'game/a/x', 'game/ab', 'other'].entries()) {
        await player.request({ action: 'on_disconnect', op: 'set', path, value: i, id: i });
      }
      const cancel = await player.request({ action: 'on_disconnect', op: 'cancel', path: 'game/a', id: 'c' });
      expect(cancel).toEqual({ event: 'ack', action: 'on_disconnect', path: 'game/a', id: 'c' });
      await closeAndRun(t, player);
      expect(await read(t, '')).toEqual({ game: { ab: 2 }, other: 3 });
    });

    it('holds at most 64 ops per connection: the 65th is an error event, and a cancel frees room', async () => {
      const t = await freshProject(shared);
      const player = await t.socket();
      for (let i = 0; i < 64; i++) {
        const answer = await player.request({
          action: 'on_disconnect',
          op: 'set',
          path: `slots/${i}`,
          value: i,
          id: i,
        });
        expect(answer.event).toBe('ack');
      }
      const refused = await player.request({ action: 'on_disconnect', op: 'set', path: 'slots/x', value: 1, id: 'x' });
      expect(refused).toEqual({ event: 'error', message: TOO_MANY_DISCONNECT_OPS, id: 'x' });
      expect(TOO_MANY_DISCONNECT_OPS).toBe('Too many on-disconnect writes: at most 64 per connection');
      await player.request({ action: 'on_disconnect', op: 'cancel', path: 'slots/0', id: 'c' });
      expect((await player.request({ action: 'on_disconnect', op: 'delete', path: 'y', id: 'y' })).event).toBe('ack');
      await closeAndRun(t, player);
      const slots = (await read(t, 'slots')) as Record<string, number>;
      expect(Object.keys(slots)).toHaveLength(63);
      expect(slots['0']).toBeUndefined();
    });

    it('answers bad input with an error event carrying the id, stores nothing and keeps the socket', async () => {
      const t = await freshProject(shared);
      const player = await t.socket();
      const cases: [Record<string, unknown>, string][] = [
        [{ path: 'a' }, 'op is required'],
        [{ op: 'put', path: 'a' }, "op must be 'set', 'patch', 'delete' or 'cancel'"],
        [{ op: 'set', path: 'a' }, 'value is required'],
        [{ op: 'patch', path: 'a', value: [1] }, 'value must be an object'],
        [{ op: 'delete' }, 'path is required'],
        [{ op: 'delete', path: 'a/../b' }, 'Invalid path segment'],
        [
          { op: 'patch', path: 'a', value: { b: 1, 'b/c': 2 } },
          "Patch keys 'b' and 'b/c' overlap: one is a prefix of the other",
        ],
        [{ op: 'set', path: 'a', value: { '.sv': 'nonsense' } }, 'Invalid server value'],
      ];
      for (const [i, [fields, message]] of cases.entries()) {
        expect(await player.request({ action: 'on_disconnect', ...fields, id: i })).toEqual({
          event: 'error',
          message,
          id: i,
        });
      }
      expect((await player.request({ action: 'subscribe', path: 'a', id: 'still-open' })).event).toBe('init');
      await closeAndRun(t, player);
      expect(await read(t, '')).toBeNull();
    });

    it('checks the write rules when storing: a denial is an error event and nothing is stored', async () => {
      const t = await freshProject(shared);
      rules.set(t.project.projectId, {
        realtime: [{ match: 'mine/{uid}/{rest=**}', allow: { read: 'true', write: 'request.auth.uid == uid' } }],
      });
      const player = await t.socket();
      const denied = await player.request({
        action: 'on_disconnect',
        op: 'set',
        path: 'mine/999/x',
        value: 1,
        id: 'd',
      });
      expect(denied).toEqual({ event: 'error', message: 'Permission denied by rules', id: 'd' });
      const own = `mine/${t.userId}/x`;
      expect((await player.request({ action: 'on_disconnect', op: 'set', path: own, value: 1, id: 'ok' })).event).toBe(
        'ack',
      );
      await closeAndRun(t, player);
      expect(await read(t, 'mine')).toEqual({ [t.userId]: { x: 1 } });
      rules.clear(t.project.projectId);
    });

    it('checks the rules again when it runs, with the auth of when it was stored: a denial drops it', async () => {
      const t = await freshProject(shared);
      const byRole = { match: 'seats/{rest=**}', allow: { read: 'true', write: '"player" in request.auth.roles' } };
      rules.set(t.project.projectId, { realtime: [byRole] });
      const { accounts } = t.app.services;
      // Stored while a player; the role is gone when it runs, and the stored auth still has it.
      const kept = await t.socket();
      await kept.request({ action: 'on_disconnect', op: 'set', path: 'seats/kept', value: true, id: 1 });
      await accounts.createRole(t.project.projectId, 'watcher', ['client.realtime']);
      await accounts.setUserRoles(t.project.projectId, t.userId, ['watcher']);
      await closeAndRun(t, kept);
      expect(await read(t, 'seats/kept')).toBe(true);
      // Stored under rules that allowed it; the ruleset changed before it ran: dropped, nothing written.
      await accounts.setUserRoles(t.project.projectId, t.userId, ['player']);
      const dropped = await t.socket();
      await dropped.request({ action: 'on_disconnect', op: 'set', path: 'seats/dropped', value: true, id: 2 });
      rules.set(t.project.projectId, { realtime: [{ match: 'seats/{rest=**}', allow: { read: 'true' } }] });
      const version = await t.app.services.tree.currentVersion(t.project.projectId);
      const droppedBefore = await droppedCount(t);
      await closeAndRun(t, dropped);
      expect(await read(t, 'seats/dropped')).toBeNull();
      expect(await t.app.services.tree.currentVersion(t.project.projectId)).toBe(version);
      expect(await droppedCount(t)).toBe(droppedBefore + 1);
      expect(await t.app.services.storage.disconnectOps.ofInstance(t.app.services.disconnectOps.instanceId)).toEqual(
        [],
      );
      rules.clear(t.project.projectId);
    });

    it('runs the ops of sockets the server closes: 1008, and every socket at shutdown before close resolves', async () => {
      const t = await startRealtimeApp(engine);
      try {
        const revoked = await t.socket();
        await revoked.request({ action: 'on_disconnect', op: 'set', path: 'left/revoked', value: 1008, id: 1 });
        await t.app.services.accounts.createRole(t.project.projectId, 'docs_only', ['client.documents']);
        await t.app.services.accounts.setUserRoles(t.project.projectId, t.userId, ['docs_only']);
        expect((await revoked.closed).code).toBe(1008);
        for (let i = 0; i < 200 && (await read(t, 'left/revoked')) === null; i++) await sleep(25);
        expect(await read(t, 'left/revoked')).toBe(1008);
        await t.app.services.accounts.setUserRoles(t.project.projectId, t.userId, ['player']);
        const sockets = await Promise.all([t.socket(), t.socket(), t.socket()]);
        for (const [i, socket] of sockets.entries()) {
          await socket.request({ action: 'on_disconnect', op: 'set', path: `left/s${i}`, value: i, id: i });
        }
        const tree = t.app.services.tree;
        const projectId = t.project.projectId;
        // What the shutdown wrote is read through the storage, still open once HTTP closed.
        await t.app.http.close();
        expect((await Promise.all(sockets.map((s) => s.closed))).map((c) => c.code)).toEqual([1001, 1001, 1001]);
        expect((await tree.snapshot(projectId, 'left')).value).toEqual({ revoked: 1008, s0: 0, s1: 1, s2: 2 });
      } finally {
        await t.close().catch(() => undefined);
      }
    });

    it('runs the ops of a socket closed with 4001 when its token expires (§14)', async () => {
      const t = await freshProject(shared);
      const token = await new SignJWT({ pid: t.project.projectId, typ: 'access', epoch: 0 })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(t.userId))
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      const expiring = await t.socket({ ...t.headers, authorization: `Bearer ${token}` });
      await expiring.request({ action: 'on_disconnect', op: 'set', path: 'expired/ann', value: 4001, id: 1 });
      expect((await expiring.closed).code).toBe(4001);
      for (let i = 0; i < 200 && (await read(t, 'expired/ann')) === null; i++) await sleep(25);
      expect(await read(t, 'expired/ann')).toBe(4001);
    });

    it('lets an admin socket store ops too (no rules), and answers a client ping with a pong', async () => {
      const t = await freshProject(shared);
      const origin = t.wsUrl.replace(/\/realtime\/ws$/, '');
      const { adminFixture } = await import('../support/admin.js');
      const f = await adminFixture(t);
      const admin = await open(
        `${origin}/admin/projects/${t.project.projectId}/realtime/ws?access_token=${f.editor.token}`,
      );
      await admin.request({ action: 'on_disconnect', op: 'patch', path: 'admin', value: { left: true }, id: 1 });
      const pong = new Promise<string>((resolve) => admin.ws.once('pong', (data) => resolve(data.toString())));
      admin.ws.ping('hello');
      expect(await pong).toBe('hello');
      await closeAndRun(t, admin);
      expect(await read(t, 'admin')).toEqual({ left: true });
    });
  });
}

async function droppedCount(t: RealtimeTestApp): Promise<number> {
  const metric = await t.app.metrics.disconnectOps.get();
  return metric.values.find((value) => value.labels.outcome === 'dropped')?.value ?? 0;
}
