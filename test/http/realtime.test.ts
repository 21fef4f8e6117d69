/** The realtime tree over REST (§3) through the real app, on every engine. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime REST routes (§3) on ${engine.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers = t.headers) =>
      t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    it('PUT stores a subtree and returns it as stored; GET assembles it', async () => {
      const put = await call('PUT', '/realtime/db/rooms/r1', {
        value: { name: 'lobby', players: { ann: 1 }, gone: null },
      });
      expect(put.statusCode).toBe(200);
      expect(put.headers['content-type']).toMatch(/^application\/json/);
      expect(put.json()).toEqual({ path: 'rooms/r1', value: { name: 'lobby', players: { ann: 1 } } });
      expect((await call('GET', '/realtime/db/rooms')).json()).toEqual({
        path: 'rooms',
        value: { r1: { name: 'lobby', players: { ann: 1 } } },
      });
      expect((await call('GET', '/realtime/db/rooms/r1/players/ann')).json()).toEqual({
        path: 'rooms/r1/players/ann',
        value: 1,
      });
    });

    it('GET of nothing is 200 with null; paths are normalized (dot segments: see the unit tests)', async () => {
      expect((await call('GET', '/realtime/db/nothing/here')).json()).toEqual({ path: 'nothing/here', value: null });
      await call('PUT', '/realtime/db//norm//a/', { value: 'x' });
      expect((await call('GET', '/realtime/db/norm/a')).json()).toEqual({ path: 'norm/a', value: 'x' });
    });

    it('the empty path is the root, with or without a trailing slash', async () => {
      const other = await t.otherProject();
      await call('PUT', '/realtime/db/x', { value: 1 }, other.headers);
      for (const url of ['/realtime/db/', '/realtime/db']) {
        const res = await call('GET', url, undefined, other.headers);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ path: '', value: { x: 1 } });
      }
    });

    it('PUT replaces the subtree whole and turns leaf ancestors into objects', async () => {
      await call('PUT', '/realtime/db/r', { value: { a: 1, b: 2 } });
      await call('PUT', '/realtime/db/r', { value: { c: 3 } });
      expect((await call('GET', '/realtime/db/r')).json().value).toEqual({ c: 3 });
      await call('PUT', '/realtime/db/r/c/d', { value: [1, 2] });
      expect((await call('GET', '/realtime/db/r')).json().value).toEqual({ c: { d: [1, 2] } });
    });

    it('null and {} delete; DELETE is always 200 with {deleted}', async () => {
      await call('PUT', '/realtime/db/d', { value: { a: 1, b: 2 } });
      expect((await call('PUT', '/realtime/db/d/a', { value: null })).json()).toEqual({ path: 'd/a', value: null });
      await call('PUT', '/realtime/db/d/b', { value: {} });
      expect((await call('GET', '/realtime/db/d')).json().value).toBeNull();
      const del = await call('DELETE', '/realtime/db/never/was');
      expect(del.statusCode).toBe(200);
      expect(del.json()).toEqual({ deleted: 'never/was' });
    });

    it('PATCH applies child paths atomically and returns the merged value', async () => {
      await call('PUT', '/realtime/db/p', { value: { keep: 1, c: 2 } });
      const res = await call('PATCH', '/realtime/db/p', { value: { 'a/b': 1, c: null } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ path: 'p', value: { keep: 1, a: { b: 1 } } });
    });

    it('PATCH refuses overlapping keys (400) and a non-object value (422)', async () => {
      const overlap = await call('PATCH', '/realtime/db/p', { value: { a: 1, 'a/b': 2 } });
      expect(overlap.statusCode).toBe(400);
      expect(overlap.json().detail).toMatch(/overlap/);
      for (const value of [1, 'x', [1], null]) {
        const res = await call('PATCH', '/realtime/db/p', { value });
        expect(res.statusCode).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['body', 'value']);
      }
      expect((await call('PATCH', '/realtime/db/p', {})).statusCode).toBe(422);
      expect((await call('GET', '/realtime/db/p')).json().value).toEqual({ keep: 1, a: { b: 1 } });
    });

    it('PUT without value is 422; keys with a slash, empty, . or .. are 400', async () => {
      const missing = await call('PUT', '/realtime/db/v', {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().detail[0]).toMatchObject({ loc: ['body', 'value'], type: 'missing' });
      for (const key of ['a/b', '', '.', '..']) {
        const res = await call('PUT', '/realtime/db/v', { value: { nested: { [key]: 1 } } });
        expect(res.statusCode).toBe(400);
        expect(res.json().detail).toMatch(/Invalid key/);
      }
      expect((await call('PUT', '/realtime/db/v', { value: 'nul\u0000' })).statusCode).toBe(422);
      expect((await call('GET', '/realtime/db/v')).json().value).toBeNull();
    });

    it("shallow=true lists an object's keys with true", async () => {
      await call('PUT', '/realtime/db/big', { value: { a: { deep: { x: 1 } }, b: 2, c: [3] } });
      expect((await call('GET', '/realtime/db/big?shallow=true')).json()).toEqual({
        path: 'big',
        value: { a: true, b: true, c: true },
      });
      expect((await call('GET', '/realtime/db/big/b?shallow=true')).json().value).toBe(2);
      expect((await call('GET', '/realtime/db/none?shallow=true')).json().value).toBeNull();
      expect((await call('GET', '/realtime/db/big?shallow=maybe')).statusCode).toBe(422);
    });

    it('needs the three §1 values and the client.realtime permission', async () => {
      const none = await t.app.http.inject({ method: 'GET', url: '/realtime/db/x' });
      expect(none.statusCode).toBe(401);
      expect(none.json()).toEqual({ detail: 'Invalid client credentials' });
      const noToken = await call('GET', '/realtime/db/x', undefined, {
        'x-client-id': t.project.clientId,
        'x-client-secret': t.project.clientSecret,
      });
      expect(noToken.statusCode).toBe(401);
      const { accounts } = t.app.services;
      await accounts.createRole(t.project.projectId, 'docs_only', ['client.documents']);
      const user = await accounts.createUser(t.project.projectId, {
        username: 'no_realtime',
        password: 'password-123',
        roles: ['docs_only'],
      });
      const { access_token } = await accounts.issueToken(t.project.projectId, user.id);
      const forbidden = await call('GET', '/realtime/db/x', undefined, {
        ...t.headers,
        authorization: `Bearer ${access_token}`,
      });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual({ detail: "Permission 'client.realtime' required" });
    });

    it('keeps projects apart', async () => {
      await call('PUT', '/realtime/db/secret', { value: { code: 42 } });
      const other = await t.otherProject();
      expect((await call('GET', '/realtime/db/secret', undefined, other.headers)).json().value).toBeNull();
      await call('DELETE', '/realtime/db/', undefined, other.headers);
      expect((await call('GET', '/realtime/db/secret')).json().value).toEqual({ code: 42 });
    });
  });
}
