/**
 * Server keys (§9) on every engine: creation, listing and revocation by admins; a key acts with
 * its role on its own project's admin routes and admin document store only, and is refused
 * (401) on client routes, organisation routes and once revoked. Only the key's hash is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/auth/tokens.js';
import type { Storage } from '../../src/core/ports.js';
import type { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import type { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const INVALID_TOKEN = { detail: 'Invalid or expired token' };

/** Every stored row of `server_keys`, as JSON text. */
async function storedKeyRows(storage: Storage): Promise<string> {
  if ('db' in storage) {
    return JSON.stringify((storage as SqliteStorage).db.prepare('SELECT * FROM server_keys').all());
  }
  return JSON.stringify((await (storage as PostgresStorage).pool.query('SELECT * FROM server_keys')).rows);
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`server keys (§9) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    let keysUrl = '';
    let store = '';
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      keysUrl = `/admin/projects/${f.projectId}/server-keys`;
      store = `/document-store/${f.orgId}/${f.projectId}`;
      await t.app.services.documents.put(f.projectId, 'games/g1', { score: 1 });
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
      t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    const issue = async (role: 'editor' | 'viewer', by: TestAdmin = f.owner): Promise<{ id: number; key: string }> => {
      const res = await call('POST', keysUrl, by.headers, { name: `${role} server`, role });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };

    it('creates a key shown once, lists keys without it, revokes and stops listing it', async () => {
      const res = await call('POST', keysUrl, f.editor.headers, { name: 'game server', role: 'editor' });
      expect(res.statusCode).toBe(201);
      const created = res.json();
      expect(created).toEqual({
        id: expect.any(Number),
        name: 'game server',
        role: 'editor',
        key: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const listed = await call('GET', keysUrl, f.viewer.headers);
      expect(listed.statusCode).toBe(200);
      const { key: _shownOnce, ...withoutKey } = created;
      expect(listed.json().server_keys).toContainEqual(withoutKey);
      expect(listed.body).not.toContain(created.key);

      const revoked = await call('DELETE', `${keysUrl}/${created.id}`, f.owner.headers);
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toEqual({ deleted: created.id });
      const after = (await call('GET', keysUrl, f.owner.headers)).json();
      expect(after.server_keys.map((k: { id: number }) => k.id)).not.toContain(created.id);
      for (const id of [String(created.id), '999999', 'abc']) {
        const again = await call('DELETE', `${keysUrl}/${id}`, f.owner.headers);
        expect(again.statusCode, id).toBe(404);
        expect(again.json()).toEqual({ detail: 'Server key not found' });
      }
    });

    it('needs owner or editor to create and revoke, validates the role, and hides other tenants', async () => {
      const key = await issue('viewer');
      expect((await call('POST', keysUrl, f.viewer.headers, { name: 'n', role: 'viewer' })).statusCode).toBe(403);
      expect((await call('DELETE', `${keysUrl}/${key.id}`, f.viewer.headers)).statusCode).toBe(403);
      for (const role of ['owner', 'admin', 7]) {
        const res = await call('POST', keysUrl, f.owner.headers, { name: 'n', role });
        expect(res.statusCode, String(role)).toBe(422);
        expect(res.json().detail[0].loc).toEqual(['body', 'role']);
      }
      expect((await call('POST', keysUrl, f.owner.headers, { name: '', role: 'viewer' })).statusCode).toBe(422);
      for (const [method, url] of [
        ['GET', keysUrl],
        ['POST', keysUrl],
        ['DELETE', `${keysUrl}/${key.id}`],
      ] as const) {
        const res = await call(method, url, f.stranger.headers, { name: 'n', role: 'viewer' });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({ detail: 'Project not found' });
      }
      expect((await call('GET', `${store}/docs/games/g1`, bearer(key.key))).statusCode).toBe(200);
    });

    it('stores only the SHA-256 of a key', async () => {
      const { key } = await issue('editor');
      const rows = await storedKeyRows(t.app.services.storage);
      expect(rows).not.toContain(key);
      expect(rows).not.toContain(key.slice(3));
      expect(rows).toContain(sha256Hex(key));
      expect(await t.app.services.storage.serverKeys.findByHash(sha256Hex(key))).toMatchObject({
        projectId: f.projectId,
        orgId: f.orgId,
        role: 'editor',
      });
    });

    it('acts with its role: a viewer key reads the admin store but cannot write; an editor key writes', async () => {
      const viewer = bearer((await issue('viewer')).key);
      const editor = bearer((await issue('editor')).key);
      expect((await call('GET', `${store}/docs/games/g1`, viewer)).json()).toMatchObject({ data: { score: 1 } });
      expect((await call('GET', `${store}/collections`, viewer)).statusCode).toBe(200);
      const write = await call('PUT', `${store}/docs/games/g2`, viewer, { data: { score: 2 } });
      expect(write.statusCode).toBe(403);
      expect(write.json()).toEqual({ detail: "Permission 'document.manage' required" });
      expect((await call('PUT', `${store}/docs/games/g2`, editor, { data: { score: 2 } })).statusCode).toBe(200);
      expect((await call('GET', `/admin/projects/${f.projectId}/users`, viewer)).statusCode).toBe(403);
      expect((await call('GET', `/admin/projects/${f.projectId}/users`, editor)).statusCode).toBe(200);
      expect((await call('GET', `/admin/projects/${f.projectId}`, viewer)).statusCode).toBe(200);
      // Client secrets stay the owner's (`project.manage`), and keys do not mint keys.
      expect((await call('GET', `/admin/projects/${f.projectId}/clients`, editor)).statusCode).toBe(403);
      expect((await call('GET', keysUrl, viewer)).statusCode).toBe(200);
      const minted = await call('POST', keysUrl, editor, { name: 'n', role: 'viewer' });
      expect(minted.statusCode).toBe(403);
      expect(minted.json()).toEqual({ detail: "Permission 'server_key.manage' required" });
    });

    it('answers 404 `Project not found` on another project, of its organisation or another', async () => {
      const editor = bearer((await issue('editor')).key);
      const sibling = await t.app.services.projectAdmin.createProject(f.orgId, 'sibling');
      const elsewhere = [
        `/admin/projects/${sibling.project_id}`,
        `/admin/projects/${sibling.project_id}/users`,
        `/admin/projects/${f.other.projectId}`,
        `/document-store/${f.orgId}/${sibling.project_id}/docs/games/g1`,
        `/document-store/${f.other.orgId}/${f.other.projectId}/collections`,
        `/document-store/${f.other.orgId}/${f.projectId}/collections`,
      ];
      for (const url of elsewhere) {
        const res = await call('GET', url, editor);
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual({ detail: 'Project not found' });
      }
    });

    it('is refused (401) on client routes, organisation routes and /admin/me', async () => {
      const key = (await issue('editor')).key;
      const client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
      const refused: [Method, string][] = [
        ['GET', '/documents/docs/games/g1'],
        ['GET', '/documents/collections/games'],
        ['GET', '/realtime/db'],
        ['GET', '/realtime/ws'],
        ['GET', '/leaderboards/top/users'],
        ['GET', '/auth/me'],
        ['GET', '/admin/me'],
        ['GET', `/admin/orgs/${f.orgId}/projects`],
        ['POST', `/admin/orgs/${f.orgId}/projects`],
      ];
      for (const [method, url] of refused) {
        const res = await call(
          method,
          url,
          { ...client, ...bearer(key) },
          method === 'POST' ? { name: 'p' } : undefined,
        );
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toEqual(INVALID_TOKEN);
      }
    });

    it('is refused (401) once revoked, and an unknown key likewise', async () => {
      const { id, key } = await issue('editor');
      expect((await call('GET', `${store}/collections`, bearer(key))).statusCode).toBe(200);
      expect((await call('DELETE', `${keysUrl}/${id}`, f.editor.headers)).statusCode).toBe(200);
      for (const credential of [key, `sk_${'A'.repeat(43)}`, 'sk_']) {
        const res = await call('GET', `${store}/collections`, bearer(credential));
        expect(res.statusCode, credential).toBe(401);
        expect(res.json()).toEqual(INVALID_TOKEN);
      }
      // Revoking a key does not revoke another.
      const other = await issue('viewer');
      expect((await call('GET', `${store}/collections`, bearer(other.key))).statusCode).toBe(200);
    });
  });
}
