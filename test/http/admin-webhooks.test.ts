/**
 * Webhook registrations (§16) on every engine: owners and editors register and delete, every
 * admin role lists (never a secret), a server key only reads, another organisation's project is
 * a 404, and bad URLs or event types are 422 in the §0 shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'POST' | 'DELETE';

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`webhook registrations (§16) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let url = '';
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      url = `/admin/projects/${f.projectId}/webhooks`;
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, path: string, headers: Record<string, string>, payload?: object) =>
      t.app.http.inject({ method, url: path, headers, ...(payload === undefined ? {} : { payload }) });
    const register = async (by: TestAdmin, body: object) => {
      const res = await call('POST', url, by.headers, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };

    it('registers a webhook with a secret shown once, lists it without, deletes it', async () => {
      const body = { url: 'https://hooks.example.com/cds', events: ['document.written', 'leaderboards.*'] };
      const created = await register(f.editor, { ...body, description: 'analytics' });
      expect(created).toEqual({
        id: expect.any(Number),
        ...body,
        description: 'analytics',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
      const second = await register(f.owner, { url: 'http://127.0.0.1:9000/in', events: ['user.created'] });
      expect(second.description).toBeNull();
      expect(second.secret).not.toBe(created.secret);

      const listed = await call('GET', url, f.viewer.headers);
      expect(listed.statusCode).toBe(200);
      const { secret: _shownOnce, ...withoutSecret } = created;
      expect(listed.json().webhooks).toEqual([withoutSecret, expect.objectContaining({ id: second.id })]);
      expect(listed.body).not.toContain('whsec_');
      expect((await t.app.services.storage.webhooks.get(f.projectId, created.id))?.secret).toBe(created.secret);

      const deleted = await call('DELETE', `${url}/${created.id}`, f.owner.headers);
      expect(deleted.statusCode).toBe(200);
      expect(deleted.json()).toEqual({ deleted: created.id });
      expect((await call('GET', url, f.owner.headers)).json().webhooks.map((w: { id: number }) => w.id)).toEqual([
        second.id,
      ]);
      for (const id of [String(created.id), '999999', 'abc', '0']) {
        const again = await call('DELETE', `${url}/${id}`, f.editor.headers);
        expect(again.statusCode, id).toBe(404);
        expect(again.json()).toEqual({ detail: 'Webhook not found' });
      }
    });

    it('refuses a URL that is not absolute http(s) and events that are not types or <prefix>.* (422, §0 shape)', async () => {
      const cases: [object, (string | number)[]][] = [
        [{ url: 'ftp://example.com/x', events: ['user.created'] }, ['body', 'url']],
        [{ url: '/relative', events: ['user.created'] }, ['body', 'url']],
        [{ url: 'https://example.com', events: [] }, ['body', 'events']],
        [{ url: 'https://example.com', events: ['user.created', 'user.deleted'] }, ['body', 'events', 1]],
        [{ url: 'https://example.com', events: ['nothing.*'] }, ['body', 'events', 0]],
        [{ url: 'https://example.com', events: ['*'] }, ['body', 'events', 0]],
        [{ url: 'https://example.com', events: 'user.created' }, ['body', 'events']],
        [{ events: ['user.created'] }, ['body', 'url']],
        [{ url: 'https://example.com' }, ['body', 'events']],
      ];
      for (const [body, loc] of cases) {
        const res = await call('POST', url, f.owner.headers, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        const detail = res.json().detail;
        expect(detail[0]).toEqual({ loc, msg: expect.any(String), type: expect.any(String) });
      }
      expect((await call('GET', url, f.owner.headers)).json().webhooks).not.toContainEqual(
        expect.objectContaining({ url: 'ftp://example.com/x' }),
      );
    });

    it('lets owners and editors write and every role read; viewers and server keys get 403 on writes', async () => {
      const body = { url: 'https://roles.example', events: ['realtime.written'] };
      const res = await call('POST', url, f.viewer.headers, body);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ detail: "Permission 'webhook.manage' required" });
      const existing = await register(f.owner, body);
      expect((await call('DELETE', `${url}/${existing.id}`, f.viewer.headers)).statusCode).toBe(403);
      const key = await call('POST', `/admin/projects/${f.projectId}/server-keys`, f.owner.headers, {
        name: 'game server',
        role: 'editor',
      });
      const byKey = { authorization: `Bearer ${key.json().key}` };
      expect((await call('GET', url, byKey)).statusCode).toBe(200);
      expect((await call('POST', url, byKey, body)).statusCode).toBe(403);
      expect((await call('DELETE', `${url}/${existing.id}`, byKey)).statusCode).toBe(403);
      // Checked before the body: a viewer learns nothing from a bad one.
      expect((await call('POST', url, f.viewer.headers, { url: 1 })).statusCode).toBe(403);
    });

    it('hides other organisations’ projects and keeps each project’s webhooks apart', async () => {
      const mine = await register(f.owner, { url: 'https://mine.example', events: ['user.*'] });
      for (const [method, path] of [
        ['GET', url],
        ['POST', url],
        ['DELETE', `${url}/${mine.id}`],
      ] as const) {
        const res = await call(method, path, f.stranger.headers, { url: 'https://x.example', events: ['user.*'] });
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.json()).toEqual({ detail: 'Project not found' });
      }
      const theirs = `/admin/projects/${f.other.projectId}/webhooks`;
      const other = await call('POST', theirs, f.stranger.headers, {
        url: 'https://theirs.example',
        events: ['user.*'],
      });
      expect(other.statusCode).toBe(201);
      // Another project's webhook id under this project: not found, and not deleted.
      expect((await call('DELETE', `${url}/${other.json().id}`, f.owner.headers)).statusCode).toBe(404);
      expect((await call('GET', theirs, f.stranger.headers)).json().webhooks).toHaveLength(1);
      expect((await call('GET', url, f.owner.headers)).body).not.toContain('theirs.example');
      expect((await call('GET', url, {})).statusCode).toBe(401);
    });
  });
}
