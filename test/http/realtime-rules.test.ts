/** Access rules (§9) on the realtime tree over REST (§3), on every engine. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { addPlayer, MemoryRulesSource, TREE_RULES } from '../support/rules.js';

const DENIED = { detail: 'Permission denied by rules' };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`realtime rules over REST (§9) on ${engine.name}`, () => {
    let t: TestApp;
    let me: string;
    let other: string;
    let otherHeaders: Record<string, string>;
    beforeAll(async () => {
      const rules = new MemoryRulesSource();
      t = await startTestApp(engine, {}, { rules });
      const second = await addPlayer(t, 'second');
      me = String(t.userId);
      other = String(second.userId);
      otherHeaders = second.headers;
      rules.set(t.project.projectId, TREE_RULES);
      const { tree } = t.app.services;
      await tree.set(t.project.projectId, `users/${other}`, { secret: 1, deep: { x: 2 } });
      await tree.set(t.project.projectId, 'public/news', { title: 'hi' });
      await tree.set(t.project.projectId, 'vault', { open: { shared: true, x: 1 }, closed: { shared: false, x: 2 } });
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers = t.headers) =>
      t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const stored = async (path: string) => (await t.app.services.tree.get(t.project.projectId, path)).value;

    it('GET and shallow GET: allowed at the path, denied (403, exact body) elsewhere', async () => {
      const own = await call('GET', `/realtime/db/users/${other}`, undefined, otherHeaders);
      expect(own.statusCode).toBe(200);
      expect(own.json()).toEqual({ path: `users/${other}`, value: { secret: 1, deep: { x: 2 } } });
      const shallow = await call('GET', `/realtime/db/users/${other}?shallow=true`, undefined, otherHeaders);
      expect(shallow.json()).toEqual({ path: `users/${other}`, value: { secret: true, deep: true } });
      for (const url of [`/realtime/db/users/${other}`, `/realtime/db/users/${other}/deep?shallow=true`]) {
        const denied = await call('GET', url);
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toEqual(DENIED);
      }
      expect((await call('GET', '/realtime/db/public/news/title')).json()).toEqual({
        path: 'public/news/title',
        value: 'hi',
      });
    });

    it('a grant at an ancestor covers the subtree; a parent readable only child by child is denied', async () => {
      expect((await call('GET', '/realtime/db/rooms/r1/messages/m1')).statusCode).toBe(200);
      expect((await call('GET', '/realtime/db/rooms/r1?shallow=true')).statusCode).toBe(200);
      for (const url of ['/realtime/db/rooms', '/realtime/db/users', '/realtime/db', '/realtime/db/?shallow=true']) {
        expect((await call('GET', url)).statusCode).toBe(403);
      }
    });

    it('PUT and DELETE need write at the path; a denied one writes nothing', async () => {
      const put = await call('PUT', `/realtime/db/users/${me}/profile`, { value: { name: 'ann' } });
      expect(put.json()).toEqual({ path: `users/${me}/profile`, value: { name: 'ann' } });
      const denied = await call('PUT', `/realtime/db/users/${other}/secret`, { value: 666 });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(DENIED);
      expect((await call('PUT', '/realtime/db/public/news', { value: null })).statusCode).toBe(403);
      const deleted = await call('DELETE', `/realtime/db/users/${other}`);
      expect(deleted.statusCode).toBe(403);
      expect(deleted.json()).toEqual(DENIED);
      expect(await stored(`users/${other}`)).toEqual({ secret: 1, deep: { x: 2 } });
      expect(await stored('public/news')).toEqual({ title: 'hi' });
      expect((await call('DELETE', `/realtime/db/users/${me}/profile`)).json()).toEqual({
        deleted: `users/${me}/profile`,
      });
      expect(await stored(`users/${me}`)).toBeNull();
    });

    it('§1 checks, validation and path errors come before the rules', async () => {
      const deep = `/realtime/db/users/${other}/${'a/'.repeat(70)}`;
      expect((await call('GET', deep)).json()).toEqual({ detail: 'Path too long' });
      expect((await call('PUT', deep, { value: 1 })).statusCode).toBe(400);
      const badKey = await call('PUT', `/realtime/db/users/${other}`, { value: { '': 1 } });
      expect(badKey.statusCode).toBe(400);
      const overlap = await call('PATCH', `/realtime/db/users/${other}`, { value: { a: 1, 'a/b': 2 } });
      expect(overlap.statusCode).toBe(400);
      expect((await call('PUT', `/realtime/db/users/${other}`, {})).statusCode).toBe(422);
      const anonymous = await call('GET', `/realtime/db/users/${other}`, undefined, {});
      expect(anonymous.statusCode).toBe(401);
    });

    it('PATCH needs write at each child it sets: all or nothing', async () => {
      const mixed = await call('PATCH', '/realtime/db/users', { value: { [`${me}/a`]: 1, [`${other}/secret`]: 2 } });
      expect(mixed.statusCode).toBe(403);
      expect(mixed.json()).toEqual(DENIED);
      expect(await stored(`users/${me}`)).toBeNull();
      expect(await stored(`users/${other}/secret`)).toBe(1);
      const own = await call('PATCH', `/realtime/db/users/${me}`, { value: { a: 1, 'b/c': 2 } });
      expect(own.json()).toEqual({ path: `users/${me}`, value: { a: 1, b: { c: 2 } } });
    });

    it('PATCH answers null at a path the caller may not read; one without keys needs write there', async () => {
      const unreadable = await call('PATCH', '/realtime/db/users', { value: { [`${me}/z`]: 9 } });
      expect(unreadable.statusCode).toBe(200);
      expect(unreadable.json()).toEqual({ path: 'users', value: null });
      expect(await stored(`users/${me}/z`)).toBe(9);
      expect((await call('PATCH', `/realtime/db/users/${other}`, { value: {} })).statusCode).toBe(403);
      expect((await call('PATCH', `/realtime/db/users/${me}`, { value: {} })).json()).toEqual({
        path: `users/${me}`,
        value: { a: 1, b: { c: 2 }, z: 9 },
      });
    });

    it('rules see request.resource.value (after the write) as a double', async () => {
      expect((await call('PUT', '/realtime/db/scores/a', { value: 5 })).statusCode).toBe(200);
      expect((await call('PUT', '/realtime/db/scores/a', { value: 99.5 })).statusCode).toBe(200);
      for (const value of [100, 500, 'x', { n: 1 }]) {
        expect((await call('PUT', '/realtime/db/scores/a', { value })).statusCode).toBe(403);
      }
      // A delete writes null, which is no number below 100.
      expect((await call('DELETE', '/realtime/db/scores/a')).statusCode).toBe(403);
      expect((await call('PATCH', '/realtime/db/scores', { value: { b: 1, c: 200 } })).statusCode).toBe(403);
      expect(await stored('scores')).toEqual({ a: 99.5 });
      expect((await call('PATCH', '/realtime/db/scores', { value: { b: 1, c: 2 } })).json()).toEqual({
        path: 'scores',
        value: null,
      });
    });

    it('rules see resource.value (before the write, or the value read)', async () => {
      expect((await call('PUT', '/realtime/db/once/x', { value: 1 })).statusCode).toBe(200);
      expect((await call('PUT', '/realtime/db/once/x', { value: 2 })).statusCode).toBe(403);
      expect((await call('PATCH', '/realtime/db/once', { value: { x: 3, y: 1 } })).statusCode).toBe(403);
      expect(await stored('once')).toEqual({ x: 1 });
      expect((await call('GET', '/realtime/db/vault/open')).json()).toEqual({
        path: 'vault/open',
        value: { shared: true, x: 1 },
      });
      expect((await call('GET', '/realtime/db/vault/open?shallow=true')).statusCode).toBe(200);
      expect((await call('GET', '/realtime/db/vault/closed')).statusCode).toBe(403);
      expect((await call('GET', '/realtime/db/vault/closed?shallow=true')).statusCode).toBe(403);
    });

    it('the open ruleset allows everything (another project never set rules)', async () => {
      const open = await t.otherProject();
      const put = await call('PUT', '/realtime/db/users/someone', { value: 1 }, open.headers);
      expect(put.statusCode).toBe(200);
      expect((await call('GET', '/realtime/db', undefined, open.headers)).json()).toEqual({
        path: '',
        value: { users: { someone: 1 } },
      });
    });
  });
}
