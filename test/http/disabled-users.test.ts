/**
 * Disabled users (§9, §13) on every engine: the admin PATCH answers the user with `disabled`;
 * login and guest sign-in answer 401 `Account disabled`, refresh and access tokens 401, open
 * sockets close with 1008; after re-enabling, tokens issued before the disable stay refused and
 * new sign-ins work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture } from '../support/admin.js';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';

const INVALID_TOKEN = { detail: 'Invalid or expired token' };
const ACCOUNT_DISABLED = { detail: 'Account disabled' };
const PASSWORD = 'password-123';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`disabled users on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let client: Record<string, string>;
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
      f = await adminFixture(t);
      client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
    });
    afterAll(async () => {
      await t?.close();
    });

    const post = (url: string, payload: object) => t.app.http.inject({ method: 'POST', url, headers: client, payload });
    const setDisabled = async (userId: number, disabled: boolean) => {
      const res = await t.app.http.inject({
        method: 'PATCH',
        url: `/admin/projects/${f.projectId}/users/${userId}`,
        headers: f.editor.headers,
        payload: { disabled },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const signup = async (username: string) => {
      const res = await post('/auth/signup', { username, password: PASSWORD });
      expect(res.statusCode).toBe(201);
      return res.json() as { access_token: string; refresh_token: string; user: { id: number } };
    };
    const readDocs = (token: string) =>
      t.app.http.inject({
        method: 'GET',
        url: '/documents/collections/things',
        headers: { ...client, authorization: `Bearer ${token}` },
      });

    it('PATCH answers the user with `disabled`, which the user reads and listings show', async () => {
      const { user } = await signup('shown_user');
      const disabled = await setDisabled(user.id, true);
      expect(disabled).toEqual({
        id: user.id,
        username: 'shown_user',
        nickname: 'shown_user',
        avatar_url: null,
        roles: ['player'],
        disabled: true,
      });
      const url = `/admin/projects/${f.projectId}/users`;
      const one = await t.app.http.inject({ method: 'GET', url: `${url}/${user.id}`, headers: f.owner.headers });
      expect(one.json().disabled).toBe(true);
      const page = (await t.app.http.inject({ method: 'GET', url, headers: f.owner.headers })).json();
      for (const listed of page.users) expect(listed.disabled).toBe(listed.id === user.id);
      expect((await setDisabled(user.id, false)).disabled).toBe(false);
      const bad = await t.app.http.inject({
        method: 'PATCH',
        url: `${url}/${user.id}`,
        headers: f.owner.headers,
        payload: { disabled: 'yes' },
      });
      expect(bad.statusCode).toBe(422);
    });

    it('refuses login (after the password check), refresh and every token of a disabled user', async () => {
      const session = await signup('disabled_user');
      expect((await readDocs(session.access_token)).statusCode).toBe(200);
      await setDisabled(session.user.id, true);

      const login = await post('/auth/login', { username: 'disabled_user', password: PASSWORD });
      expect(login.statusCode).toBe(401);
      expect(login.json()).toEqual(ACCOUNT_DISABLED);
      const wrong = await post('/auth/login', { username: 'disabled_user', password: 'not-the-password' });
      expect(wrong.json()).toEqual({ detail: 'Invalid username or password' });
      expect((await post('/auth/refresh', { refresh_token: session.refresh_token })).statusCode).toBe(401);
      const docs = await readDocs(session.access_token);
      expect(docs.statusCode).toBe(401);
      expect(docs.json()).toEqual(INVALID_TOKEN);
      const me = await t.app.http.inject({
        method: 'GET',
        url: '/auth/me',
        headers: { ...client, authorization: `Bearer ${session.access_token}` },
      });
      expect(me.json()).toEqual(INVALID_TOKEN);
    });

    it('refuses a disabled guest', async () => {
      const guest = await post('/auth/guest', { device_id: 'disabled-device' });
      expect(guest.statusCode).toBe(200);
      await setDisabled(guest.json().user.id, true);
      const again = await post('/auth/guest', { device_id: 'disabled-device' });
      expect(again.statusCode).toBe(401);
      expect(again.json()).toEqual(ACCOUNT_DISABLED);
    });

    it('after re-enabling, refuses tokens issued before the disable and accepts new sign-ins', async () => {
      const before = await signup('revived_user');
      await setDisabled(before.user.id, true);
      await setDisabled(before.user.id, false);
      // Re-enabled within the same second as the tokens were issued: only the epoch tells them apart.
      expect((await readDocs(before.access_token)).json()).toEqual(INVALID_TOKEN);
      expect((await post('/auth/refresh', { refresh_token: before.refresh_token })).statusCode).toBe(401);
      const login = await post('/auth/login', { username: 'revived_user', password: PASSWORD });
      expect(login.statusCode).toBe(200);
      expect((await readDocs(login.json().access_token)).statusCode).toBe(200);
      const refreshed = await post('/auth/refresh', { refresh_token: login.json().refresh_token });
      expect(refreshed.statusCode).toBe(200);
      expect((await readDocs(refreshed.json().access_token)).statusCode).toBe(200);
      expect((await readDocs(before.access_token)).statusCode).toBe(401);
    });

    it('closes open sockets with 1008 within 10 s, also when re-enabled at once', async () => {
      const kept = await signup('socket_kept');
      const closed = await signup('socket_closed');
      const revived = await signup('socket_revived');
      const socketOf = (token: string) => t.socket({ ...client, authorization: `Bearer ${token}` });
      const [keptWs, closedWs, revivedWs] = await Promise.all(
        [kept, closed, revived].map((session) => socketOf(session.access_token)),
      );
      for (const ws of [keptWs, closedWs, revivedWs]) {
        expect(await ws?.request({ action: 'subscribe', path: 'live', id: 1 })).toMatchObject({ event: 'init' });
      }
      const started = Date.now();
      await setDisabled(closed.user.id, true);
      await setDisabled(revived.user.id, true);
      await setDisabled(revived.user.id, false);
      const codes = await Promise.all([closedWs, revivedWs].map(async (ws) => (await ws?.closed)?.code));
      expect(codes).toEqual([1008, 1008]);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await keptWs?.request({ action: 'subscribe', path: 'still', id: 2 })).toMatchObject({ event: 'init' });
      await keptWs?.close();
      const refused = await socketOf(closed.access_token).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Error);
    }, 15_000);
  });
}
