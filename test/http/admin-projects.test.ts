/** Project administration under /admin (§6) on every engine: roles, tenancy, projects, clients, users and roles. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Every route under /admin/projects/{project_id}, with a valid body and the permission it needs (null: any admin). */
function projectRoutes(projectId: number | string, userId: number): [Method, string, unknown, string | null][] {
  const p = `/admin/projects/${projectId}`;
  return [
    ['GET', p, undefined, null],
    ['GET', `${p}/clients`, undefined, 'project.manage'],
    ['POST', `${p}/clients`, {}, 'project.manage'],
    ['POST', `${p}/clients/cid_unknown/rotate`, {}, 'project.manage'],
    ['GET', `${p}/users`, undefined, 'user.manage'],
    ['GET', `${p}/users/${userId}`, undefined, 'user.manage'],
    ['PATCH', `${p}/users/${userId}`, { nickname: 'x' }, 'user.manage'],
    ['GET', `${p}/roles`, undefined, 'user.manage'],
    ['POST', `${p}/roles`, { name: 'r', permissions: [] }, 'user.manage'],
    ['PUT', `${p}/roles/player`, { permissions: [] }, 'user.manage'],
    ['GET', `${p}/leaderboards`, undefined, null], // reads: document.view, every role (§13)
    ['POST', `${p}/leaderboards`, { slug: 'x', name: 'X' }, 'leaderboard.manage'],
    ['GET', `${p}/leaderboards/top`, undefined, null],
    ['PATCH', `${p}/leaderboards/top`, { name: 'Y' }, 'leaderboard.manage'],
    ['POST', `${p}/leaderboards/top/stats`, { user_id: userId, value: 1 }, 'leaderboard.manage'],
    ['POST', `${p}/leaderboards/top/reset`, {}, 'leaderboard.manage'],
  ];
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`project administration (§6) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    beforeAll(async () => {
      t = await startTestApp(engine);
      f = await adminFixture(t);
      await t.app.services.leaderboards.create(f.projectId, definition('top'));
      await t.app.services.leaderboards.create(f.other.projectId, definition('top'));
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: Method, url: string, admin: TestAdmin | null, payload?: unknown) =>
      t.app.http.inject({
        method,
        url,
        headers: admin?.headers ?? {},
        ...(payload === undefined ? {} : { payload: payload as object }),
      });

    it('an admin of another organisation gets 404 `Project not found` on every project route, changing nothing', async () => {
      for (const [method, url, body] of projectRoutes(f.projectId, t.userId)) {
        const res = await call(method, url, f.stranger, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual({ detail: 'Project not found' });
      }
      const users = await call('GET', `/admin/projects/${f.projectId}/users/${t.userId}`, f.owner);
      expect(users.json().nickname).toBe(`player_main`);
      const board = await call('GET', `/admin/projects/${f.projectId}/leaderboards/top`, f.owner);
      expect(board.json().name).toBe('Board top');
    });

    it('unknown or malformed project ids answer the same 404', async () => {
      for (const id of ['999999', 'abc', '0', '-3', `0${f.projectId}`]) {
        for (const [method, url, body] of projectRoutes(id, t.userId)) {
          const res = await call(method, url, f.owner, body);
          expect(res.statusCode, `${method} ${url}`).toBe(404);
          expect(res.json()).toEqual({ detail: 'Project not found' });
        }
      }
    });

    it('every route needs an admin token; a player token is refused', async () => {
      for (const [method, url, body] of projectRoutes(f.projectId, t.userId)) {
        for (const headers of [{}, { authorization: `Bearer ${t.token}` }]) {
          const res = await t.app.http.inject({ method, url, headers, ...(body ? { payload: body as object } : {}) });
          expect(res.statusCode).toBe(401);
          expect(res.json()).toEqual({ detail: 'Invalid or expired token' });
        }
      }
    });

    it('roles: viewer is refused every management route; editor only project.manage (403 with its name)', async () => {
      for (const [method, url, body, permission] of projectRoutes(f.projectId, t.userId)) {
        for (const admin of [f.viewer, f.editor]) {
          const allowed = permission === null || (admin.role === 'editor' && permission !== 'project.manage');
          if (allowed) continue;
          const res = await call(method, url, admin, body);
          expect(res.statusCode, `${admin.role} ${method} ${url}`).toBe(403);
          expect(res.json()).toEqual({ detail: `Permission '${permission}' required` });
        }
      }
      const orgs = `/admin/orgs/${f.orgId}/projects`;
      for (const admin of [f.editor, f.viewer]) {
        const res = await call('POST', orgs, admin, { name: 'nope' });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ detail: "Permission 'project.manage' required" });
      }
    });

    it('lists the organisation’s projects (any role) and 404s another organisation', async () => {
      for (const admin of [f.owner, f.editor, f.viewer]) {
        const res = await call('GET', `/admin/orgs/${f.orgId}/projects`, admin);
        expect(res.statusCode).toBe(200);
        expect(res.json().projects).toContainEqual({ id: f.projectId, org_id: f.orgId, name: 'main' });
        expect(res.json().projects.map((p: { id: number }) => p.id)).not.toContain(f.other.projectId);
      }
      for (const org of [f.other.orgId, 999_999, 'abc']) {
        for (const method of ['GET', 'POST'] as const) {
          const res = await call(
            method,
            `/admin/orgs/${org}/projects`,
            f.owner,
            method === 'POST' ? { name: 'x' } : undefined,
          );
          expect(res.statusCode).toBe(404);
          expect(res.json()).toEqual({ detail: 'Organisation not found' });
        }
      }
      const one = await call('GET', `/admin/projects/${f.projectId}`, f.viewer);
      expect(one.json()).toEqual({ id: f.projectId, org_id: f.orgId, name: 'main' });
    });

    it('an owner creates a project whose client credentials work at once', async () => {
      const res = await call('POST', `/admin/orgs/${f.orgId}/projects`, f.owner, { name: 'second' });
      expect(res.statusCode).toBe(201);
      const created = res.json();
      expect(Object.keys(created).sort()).toEqual(['client_id', 'client_secret', 'org_id', 'project_id']);
      expect(created.org_id).toBe(f.orgId);
      const signup = await t.app.http.inject({
        method: 'POST',
        url: '/auth/signup',
        headers: { 'x-client-id': created.client_id, 'x-client-secret': created.client_secret },
        payload: { username: 'first_player', password: 'password-123' },
      });
      expect(signup.statusCode).toBe(201);
      expect((await call('GET', `/admin/projects/${created.project_id}/users`, f.editor)).json().total).toBe(1);
      expect((await call('POST', `/admin/orgs/${f.orgId}/projects`, f.owner, { name: '' })).statusCode).toBe(422);
      const blank = await call('POST', `/admin/orgs/${f.orgId}/projects`, f.owner, { name: '   ' });
      expect(blank.statusCode).toBe(400);
    });

    it('clients: list without secrets, issue another, rotate a secret (the old one stops working)', async () => {
      const base = `/admin/projects/${f.projectId}/clients`;
      const issued = await call('POST', base, f.owner);
      expect(issued.statusCode).toBe(201);
      const { client_id, client_secret } = issued.json();
      const listed = (await call('GET', base, f.owner)).json().clients;
      expect(listed.map((c: { client_id: string }) => c.client_id)).toEqual([t.project.clientId, client_id]);
      expect(JSON.stringify(listed)).not.toContain('cs_');
      expect(listed[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const signupWith = (secret: string, username: string) =>
        t.app.http.inject({
          method: 'POST',
          url: '/auth/signup',
          headers: { 'x-client-id': client_id, 'x-client-secret': secret },
          payload: { username, password: 'password-123' },
        });
      expect((await signupWith(client_secret, 'before_rotation')).statusCode).toBe(201);
      const rotated = await call('POST', `${base}/${client_id}/rotate`, f.owner);
      expect(rotated.statusCode).toBe(200);
      expect(rotated.json().client_id).toBe(client_id);
      expect(rotated.json().client_secret).not.toBe(client_secret);
      const old = await signupWith(client_secret, 'with_old_secret');
      expect(old.statusCode).toBe(401);
      expect(old.json()).toEqual({ detail: 'Invalid client credentials' });
      expect((await signupWith(rotated.json().client_secret, 'with_new_secret')).statusCode).toBe(201);

      const unknown = await call('POST', `${base}/cid_nope/rotate`, f.owner);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ detail: 'Client not found' });
      // A client of another project is not reachable through this project's URL.
      const otherClients = (await call('GET', `/admin/projects/${f.other.projectId}/clients`, f.stranger)).json();
      const theirs = otherClients.clients[0].client_id as string;
      expect((await call('POST', `${base}/${theirs}/rotate`, f.owner)).statusCode).toBe(404);
    });

    it('users: paged by id with a total; page bounds answer 422', async () => {
      for (let i = 0; i < 4; i++) {
        await t.app.services.accounts.createUser(f.projectId, { username: `paged_${i}`, password: 'password-123' });
      }
      const base = `/admin/projects/${f.projectId}/users`;
      const all = (await call('GET', base, f.editor)).json();
      expect(all).toMatchObject({ page: 1, page_size: 20 });
      expect(all.total).toBeGreaterThanOrEqual(5);
      expect(all.users.map((u: { id: number }) => u.id)).toEqual(
        [...all.users.map((u: { id: number }) => u.id)].sort((a, b) => a - b),
      );
      const page2 = (await call('GET', `${base}?page=2&page_size=2`, f.editor)).json();
      expect(page2).toMatchObject({ page: 2, page_size: 2, total: all.total });
      expect(page2.users).toEqual(all.users.slice(2, 4));
      expect(page2.users[0]).toEqual({
        id: expect.any(Number),
        username: expect.any(String),
        nickname: expect.any(String),
        avatar_url: null,
        roles: ['player'],
        disabled: false,
      });
      for (const query of ['page=0', 'page_size=101', 'page_size=0', 'page=x']) {
        expect((await call('GET', `${base}?${query}`, f.editor)).statusCode).toBe(422);
      }
    });

    it('users: get and edit nickname, avatar and roles; unknown roles change nothing', async () => {
      const url = `/admin/projects/${f.projectId}/users/${t.userId}`;
      const before = (await call('GET', url, f.editor)).json();
      expect(before).toMatchObject({ id: t.userId, username: 'player_main', roles: ['player'] });
      await call('POST', `/admin/projects/${f.projectId}/roles`, f.editor, {
        name: 'muted',
        permissions: ['client.leaderboard'],
      });

      const refused = await call('PATCH', url, f.editor, { nickname: 'Changed', roles: ['player', 'ghost'] });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().detail).toMatch(/ghost/);
      expect((await call('GET', url, f.editor)).json()).toEqual(before);

      const edited = await call('PATCH', url, f.editor, {
        nickname: 'Neo',
        avatar_url: 'https://x/y.png',
        roles: ['muted'],
      });
      expect(edited.statusCode).toBe(200);
      expect(edited.json()).toEqual({ ...before, nickname: 'Neo', avatar_url: 'https://x/y.png', roles: ['muted'] });
      // The player's own view agrees, and the new roles apply to their token (this instance forgets at once).
      const self = await t.app.http.inject({ method: 'GET', url: '/auth/me', headers: t.headers });
      expect(self.json()).toMatchObject({ nickname: 'Neo', avatar_url: 'https://x/y.png', roles: ['muted'] });
      const docs = await t.app.http.inject({ method: 'GET', url: '/documents/docs/a/b', headers: t.headers });
      expect(docs.statusCode).toBe(403);

      const restored = await call('PATCH', url, f.owner, { avatar_url: null, roles: ['player'] });
      expect(restored.json()).toMatchObject({ nickname: 'Neo', avatar_url: null, roles: ['player'] });
      for (const id of ['999999', 'abc']) {
        const res = await call('GET', `/admin/projects/${f.projectId}/users/${id}`, f.editor);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ detail: 'User not found' });
      }
      const otherUser = await call('GET', `/admin/projects/${f.projectId}/users/1`, f.stranger);
      expect(otherUser.statusCode).toBe(404);
      expect((await call('PATCH', url, f.editor, { nickname: '' })).statusCode).toBe(422);
    });

    it('roles: list, create (409 when taken), replace permissions (404 when missing)', async () => {
      const base = `/admin/projects/${f.projectId}/roles`;
      const created = await call('POST', base, f.editor, {
        name: 'moderator',
        permissions: ['client.documents', 'x.y'],
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({ name: 'moderator', permissions: ['client.documents', 'x.y'] });
      const again = await call('POST', base, f.editor, { name: 'moderator', permissions: [] });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ detail: "Role 'moderator' already exists" });
      expect((await call('POST', base, f.editor, { name: 'bad name!', permissions: [] })).statusCode).toBe(400);

      const replaced = await call('PUT', `${base}/moderator`, f.owner, { permissions: ['client.realtime'] });
      expect(replaced.json()).toEqual({ name: 'moderator', permissions: ['client.realtime'] });
      const missing = await call('PUT', `${base}/nobody`, f.owner, { permissions: [] });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ detail: 'Role not found' });
      const roles = (await call('GET', base, f.editor)).json().roles;
      expect(roles).toContainEqual({ name: 'moderator', permissions: ['client.realtime'] });
      expect(roles.map((r: { name: string }) => r.name)).toEqual(
        [...roles.map((r: { name: string }) => r.name)].sort(),
      );
      expect((await call('PUT', `${base}/moderator`, f.owner, {})).statusCode).toBe(422);
    });

    it('an admin of the other organisation manages its own project', async () => {
      const res = await call('GET', `/admin/projects/${f.other.projectId}/users`, f.stranger);
      expect(res.statusCode).toBe(200);
      expect(res.json().users.map((u: { username: string }) => u.username)).toEqual(['player_other1']);
    });
  });
}
