/** The admin realtime WebSocket (§13, §4's protocol) on every engine: refusals as the admin REST routes, roles, keys, no rules. */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { TEST_JWT_SECRET } from '../support/app.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import { connect, open, type ServerMessage, TestSocket } from '../support/ws-client.js';

const DENY_ALL = { documents: [], realtime: [] };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An admin token of `adminId` expiring at `exp` (seconds), as `POST /admin/auth/login` signs them. */
const adminTokenOf = (adminId: number, exp: number) =>
  new SignJWT({ typ: 'admin' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(adminId))
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`admin realtime WebSocket (§13) on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let origin = '';
    const adminWs = (projectId: number) => `${origin}/admin/projects/${projectId}/realtime/ws`;
    const rest = (
      url: string,
      headers: Record<string, string>,
      method: 'GET' | 'PUT' | 'POST' | 'DELETE' = 'GET',
      payload?: object,
    ) => t.app.http.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const issueKey = async (role: 'editor' | 'viewer'): Promise<{ id: number; key: string }> => {
      const res = await rest(`/admin/projects/${f.projectId}/server-keys`, f.owner.headers, 'POST', {
        name: role,
        role,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const asAdmin = (admin: TestAdmin) => open(`${adminWs(f.projectId)}?access_token=${admin.token}`);

    beforeAll(async () => {
      t = await startRealtimeApp(engine);
      f = await adminFixture(t);
      origin = t.wsUrl.replace(/\/realtime\/ws$/, '');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses a handshake before the upgrade with the status and body of the admin REST routes', async () => {
      const before = t.app.realtime.connections;
      const revoked = await issueKey('viewer');
      expect(
        (await rest(`/admin/projects/${f.projectId}/server-keys/${revoked.id}`, f.owner.headers, 'DELETE')).statusCode,
      ).toBe(200);
      const cases: [string, number, Record<string, string>][] = [
        ['no token', f.projectId, {}],
        ['a client token', f.projectId, t.headers],
        ['a revoked key', f.projectId, bearer(revoked.key)],
        ["another organisation's admin", f.projectId, f.stranger.headers],
        ["another organisation's project", f.other.projectId, f.owner.headers],
        ['a malformed project id', 0, f.owner.headers],
      ];
      for (const [name, projectId, headers] of cases) {
        const refused = await connect(adminWs(projectId), headers);
        const restAnswer = await rest(`/admin/projects/${projectId}/realtime/db/x`, headers);
        expect(restAnswer.statusCode, name).toBeGreaterThanOrEqual(400);
        expect(refused, name).toEqual({ status: restAnswer.statusCode, body: restAnswer.json() });
      }
      // A client token in the query string is refused too.
      expect(await connect(`${adminWs(f.projectId)}?access_token=${t.token}`)).toEqual({
        status: 401,
        body: { detail: 'Invalid or expired token' },
      });
      expect(t.app.realtime.connections).toBe(before);
    });

    it('lets a viewer subscribe but not write; an editor writes and a client subscriber sees it', async () => {
      const viewer = await asAdmin(f.viewer);
      const editor = await open(adminWs(f.projectId), f.editor.headers);
      const client = await t.socket();
      expect(await viewer.request({ action: 'subscribe', path: 'rooms', id: 1 })).toMatchObject({
        event: 'init',
        value: null,
      });
      expect(await client.request({ action: 'subscribe', path: 'rooms', id: 1 })).toMatchObject({ event: 'init' });

      for (const write of [
        { action: 'set', path: 'rooms/r1', value: 1 },
        { action: 'patch', path: 'rooms', value: { r1: 2 } },
        { action: 'delete', path: 'rooms/r1' },
      ]) {
        expect(await viewer.request({ ...write, id: 'w' })).toEqual({
          event: 'error',
          message: "Permission 'document.manage' required",
          id: 'w',
        });
      }
      expect(await editor.request({ action: 'set', path: 'rooms/r1', value: { name: 'Lobby' }, id: 2 })).toMatchObject({
        event: 'ack',
        action: 'set',
      });
      const seen = (m: ServerMessage) => m.event === 'update' && m.path === 'rooms/r1';
      expect(await client.waitFor(seen)).toMatchObject({ value: { name: 'Lobby' }, version: expect.any(Number) });
      expect(await viewer.waitFor(seen)).toMatchObject({ value: { name: 'Lobby' } });
      // A client's write reaches the admin subscriber the same way.
      await client.request({ action: 'set', path: 'rooms/r2', value: 'x', id: 3 });
      expect(await viewer.waitFor((m) => m.path === 'rooms/r2')).toMatchObject({ event: 'update', value: 'x' });
      await Promise.all([viewer.close(), editor.close(), client.close()]);
    });

    it('takes server keys: a viewer key reads, an editor key writes', async () => {
      const viewerKey = await issueKey('viewer');
      const editorKey = await issueKey('editor');
      const reader = await open(adminWs(f.projectId), bearer(viewerKey.key));
      const writer = await open(`${adminWs(f.projectId)}?access_token=${editorKey.key}`);
      expect(await reader.request({ action: 'subscribe', path: 'keys', id: 1 })).toMatchObject({ event: 'init' });
      expect(await reader.request({ action: 'set', path: 'keys/a', value: 1, id: 2 })).toMatchObject({
        event: 'error',
      });
      expect(await writer.request({ action: 'set', path: 'keys/a', value: 1, id: 2 })).toMatchObject({ event: 'ack' });
      expect(await reader.waitFor((m) => m.event === 'update')).toMatchObject({ path: 'keys/a', value: 1 });
      await Promise.all([reader.close(), writer.close()]);
    });

    it('replaces its token with one of the same admin, and closes 1008 on one of another', async () => {
      const ws = await asAdmin(f.owner);
      const login = await rest('/admin/auth/login', {}, 'POST', { email: f.owner.email, password: 'admin-password-1' });
      const fresh = login.json().access_token as string;
      expect(await ws.request({ action: 'auth', access_token: fresh, id: 'a' })).toEqual({
        event: 'ack',
        action: 'auth',
        id: 'a',
      });
      expect(await ws.request({ action: 'auth', access_token: f.editor.token, id: 'b' })).toMatchObject({
        event: 'error',
      });
      expect((await ws.closed).code).toBe(1008);
      const client = await asAdmin(f.owner);
      expect(await client.request({ action: 'auth', access_token: t.token, id: 'c' })).toMatchObject({
        event: 'error',
      });
      expect((await client.closed).code).toBe(1008);
    });

    it('closes with 4001 Token expired once the admin token expires (§14), not before', async () => {
      const exp = Math.floor(Date.now() / 1000) + 2;
      const ws = await open(adminWs(f.projectId), bearer(await adminTokenOf(f.viewer.id, exp)));
      expect(await ws.request({ action: 'subscribe', path: 'a', id: 1 })).toMatchObject({ event: 'init' });
      const closed = await ws.closed;
      expect(closed).toEqual({ code: 4001, reason: 'Token expired' });
      expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    });

    it('closes with 1008 once its server key is revoked', async () => {
      const key = await issueKey('viewer');
      const ws = await open(adminWs(f.projectId), bearer(key.key));
      expect(await ws.request({ action: 'subscribe', path: 'a', id: 1 })).toMatchObject({ event: 'init' });
      const revoked = await rest(`/admin/projects/${f.projectId}/server-keys/${key.id}`, f.owner.headers, 'DELETE');
      expect(revoked.statusCode).toBe(200);
      // The gateway re-checks open sockets every 5 s.
      expect((await ws.closed).code).toBe(1008);
    }, 20_000);

    it('is not subject to rules: subscribe, write and listen under a deny-all ruleset', async () => {
      const rules = await rest(`/admin/projects/${f.projectId}/rules`, f.owner.headers, 'PUT', { rules: DENY_ALL });
      expect(rules.statusCode, rules.body).toBe(200);
      await t.app.services.documents.put(f.projectId, 'secrets/s1', { n: 1 });
      const client = await t.socket();
      expect(await client.request({ action: 'subscribe', path: 'vault', id: 1 })).toMatchObject({ event: 'error' });
      expect(await client.request({ action: 'set', path: 'vault/a', value: 1, id: 2 })).toMatchObject({
        event: 'error',
      });

      const viewer = await asAdmin(f.viewer);
      const editor = await asAdmin(f.editor);
      expect(await viewer.request({ action: 'subscribe', path: 'vault', id: 1 })).toMatchObject({ event: 'init' });
      expect(await editor.request({ action: 'set', path: 'vault/a', value: 1, id: 2 })).toMatchObject({ event: 'ack' });
      expect(await viewer.waitFor((m) => m.event === 'update')).toMatchObject({ path: 'vault/a', value: 1 });

      // Document listeners (§10) need only document.view, and see what the rules hide from clients.
      const snapshot = (await viewer.request({ action: 'listen', id: 'd', doc: 'secrets/s1' })) as unknown as {
        event: string;
        documents: { path: string }[];
      };
      expect(snapshot.event).toBe('snapshot');
      expect(snapshot.documents.map((d) => d.path)).toEqual(['secrets/s1']);
      await t.app.services.documents.put(f.projectId, 'secrets/s1', { n: 2 });
      await viewer.waitFor((m) => m.id === 'd' && (m.event as string) === 'changes');
      expect(viewer).toBeInstanceOf(TestSocket);
      await Promise.all([client.close(), viewer.close(), editor.close()]);
    });
  });
}
