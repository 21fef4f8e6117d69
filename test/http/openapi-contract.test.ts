/**
 * Drives every route of the running server over HTTP (client, realtime REST, leaderboards, admin
 * API and admin document store; successes and errors) and validates each real response against
 * the OpenAPI document the server publishes at /docs/json. A status a route does not document, or
 * a body its schema rejects, fails the test; so does an operation never exercised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions } from '../../src/functions/index.js';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { ContractRecorder, type OpenApi } from '../support/openapi-contract.js';

type Method = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
interface Call {
  headers?: Record<string, string>;
  body?: unknown;
  /** A raw body sent as is (with `contentType`). */
  raw?: string;
  contentType?: string;
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`every route answers as its OpenAPI document says, on ${engine.name}`, () => {
    let t: TestApp;
    let base = '';
    let contract: ContractRecorder;
    beforeAll(async () => {
      const functions = FunctionRegistry.of([
        { file: 'echo.ts', definition: defineFunctions({ projects: '*', rpc: { echo: (_ctx, input) => input } }) },
      ]);
      t = await startTestApp(engine, { CDS_BODY_LIMIT: '4096' }, { functions });
      base = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
      const document = (await (await fetch(`${base}/docs/json`)).json()) as OpenApi & { openapi: string };
      expect(document.openapi).toBe('3.1.0');
      contract = new ContractRecorder(document);
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Sends a request and records its response; answers the status and the parsed body. */
    const req = async (method: Method, url: string, call: Call = {}) => {
      const headers: Record<string, string> = { ...(call.headers ?? {}) };
      let body: string | undefined;
      if (call.raw !== undefined) {
        body = call.raw;
        headers['content-type'] = call.contentType ?? 'application/json';
      } else if (call.body !== undefined) {
        body = JSON.stringify(call.body);
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(`${base}${url}`, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await res.text();
      const json = text === '' ? undefined : JSON.parse(text);
      contract.record(method, url, res.status, res.headers.get('content-type'), json);
      return { status: res.status, json };
    };

    it('drives every documented operation; each response matches its schema', async () => {
      const player = { headers: t.headers };
      const client = { 'x-client-id': t.project.clientId, 'x-client-secret': t.project.clientSecret };
      const expectStatus = async (expected: number, method: Method, url: string, call?: Call) => {
        const res = await req(method, url, call);
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBe(expected);
        return res.json;
      };

      // Health.
      await expectStatus(200, 'GET', '/healthz');
      await expectStatus(200, 'GET', '/readyz');

      // Accounts (§1).
      const signup = await expectStatus(201, 'POST', '/auth/signup', {
        headers: client,
        body: { username: 'contract_user', password: 'password-123' },
      });
      await expectStatus(409, 'POST', '/auth/signup', {
        headers: client,
        body: { username: 'contract_user', password: 'password-123' },
      });
      await expectStatus(422, 'POST', '/auth/signup', { headers: client, body: { username: 'x', password: '1' } });
      await expectStatus(401, 'POST', '/auth/signup', { body: { username: 'nobody_here', password: 'password-123' } });
      await expectStatus(200, 'POST', '/auth/login', {
        headers: client,
        body: { username: 'contract_user', password: 'password-123' },
      });
      await expectStatus(401, 'POST', '/auth/login', {
        headers: client,
        body: { username: 'contract_user', password: 'wrong-pass' },
      });
      await expectStatus(200, 'POST', '/auth/guest', { headers: client, body: { device_id: 'device-1' } });
      await expectStatus(422, 'POST', '/auth/guest', { headers: client, body: {} });
      await expectStatus(200, 'POST', '/auth/refresh', {
        headers: client,
        body: { refresh_token: signup.refresh_token },
      });
      await expectStatus(401, 'POST', '/auth/refresh', {
        headers: client,
        body: { refresh_token: signup.refresh_token },
      });
      await expectStatus(200, 'POST', '/auth/logout', { headers: client, body: { refresh_token: 'unknown' } });
      await expectStatus(422, 'POST', '/auth/logout', { headers: client, body: {} });
      await expectStatus(401, 'POST', '/auth/logout', { body: { refresh_token: 'unknown' } });
      await expectStatus(200, 'GET', '/auth/me', player);
      await expectStatus(401, 'GET', '/auth/me', { headers: client });
      await expectStatus(200, 'PATCH', '/auth/me', { ...player, body: { nickname: 'Contract' } });
      await expectStatus(422, 'PATCH', '/auth/me', { ...player, body: { nickname: '' } });

      // Documents (§2), with the §0 body errors.
      await expectStatus(200, 'PUT', '/documents/docs/users/u1', { ...player, body: { data: { level: 3 } } });
      await expectStatus(400, 'PUT', '/documents/docs/users', { ...player, body: { data: {} } });
      await expectStatus(422, 'PUT', '/documents/docs/users/u1', { ...player, body: { data: 5 } });
      await expectStatus(422, 'PUT', '/documents/docs/users/u1', { ...player, raw: '{not json' });
      await expectStatus(415, 'PUT', '/documents/docs/users/u1', { ...player, raw: 'text', contentType: 'text/plain' });
      await expectStatus(413, 'PUT', '/documents/docs/users/u1', {
        ...player,
        body: { data: { big: 'x'.repeat(5000) } },
      });
      await expectStatus(401, 'PUT', '/documents/docs/users/u1', { body: { data: {} } });
      await expectStatus(200, 'GET', '/documents/docs/users/u1', player);
      await expectStatus(404, 'GET', '/documents/docs/users/none', player);
      await expectStatus(200, 'PATCH', '/documents/docs/users/u1', { ...player, body: { data: { level: 4 } } });
      await expectStatus(404, 'PATCH', '/documents/docs/users/none', { ...player, body: { data: {} } });
      await expectStatus(200, 'PUT', '/documents/docs/users/gone', { ...player, body: {} });
      await expectStatus(200, 'DELETE', '/documents/docs/users/gone', player);
      await expectStatus(404, 'DELETE', '/documents/docs/users/gone', player);
      await expectStatus(201, 'POST', '/documents/collections/users', { ...player, body: { data: { level: 1 } } });
      const ifMatch = { headers: { ...player.headers, 'if-match': '"0"' } };
      await expectStatus(412, 'PATCH', '/documents/docs/users/u1', { ...ifMatch, body: { data: {} } });
      await expectStatus(200, 'POST', '/documents/batch', {
        ...player,
        body: { writes: [{ op: 'patch', path: 'users/u1', transforms: { level: { increment: 1 } } }] },
      });
      await expectStatus(404, 'POST', '/documents/batch', {
        ...player,
        body: { writes: [{ op: 'delete', path: 'users/none' }] },
      });
      await expectStatus(422, 'POST', '/documents/batch', { ...player, body: { writes: [] } });
      await expectStatus(400, 'POST', '/documents/collections/users', { ...player, body: { parent_path: 'odd' } });
      await expectStatus(200, 'GET', '/documents/collections/users?limit=5', player);
      await expectStatus(422, 'GET', '/documents/collections/users?limit=0', player);
      await expectStatus(200, 'GET', '/documents/query/users?where=level__gte:1&order_by=-level', player);
      await expectStatus(400, 'GET', '/documents/query/users?where=level', player);
      await expectStatus(422, 'GET', '/documents/query/users?offset=-1', player);

      // Realtime tree over REST (§3), at the root and below it.
      for (const path of ['/realtime/db', '/realtime/db/game/state']) {
        await expectStatus(200, 'PUT', path, { ...player, body: { value: { a: 1, b: { c: true } } } });
        await expectStatus(422, 'PUT', path, { ...player, body: {} });
        await expectStatus(200, 'GET', `${path}?shallow=true`, player);
        await expectStatus(422, 'GET', `${path}?shallow=maybe`, player);
        await expectStatus(200, 'PATCH', path, { ...player, body: { value: { 'b/c': false } } });
        await expectStatus(400, 'PATCH', path, { ...player, body: { value: { a: 1, 'a/b': 2 } } });
        await expectStatus(422, 'PATCH', path, { ...player, body: { value: 3 } });
        await expectStatus(200, 'DELETE', path, player);
        await expectStatus(401, 'DELETE', path);
      }

      // Admins (§6).
      const f = await adminFixture(t);
      const owner = { headers: f.owner.headers };
      const viewer = { headers: f.viewer.headers };
      const stranger = { headers: f.stranger.headers };
      await expectStatus(200, 'POST', '/admin/auth/login', {
        body: { email: f.owner.email, password: 'admin-password-1' },
      });
      await expectStatus(401, 'POST', '/admin/auth/login', {
        body: { email: f.owner.email, password: 'wrong-password' },
      });
      await expectStatus(422, 'POST', '/admin/auth/login', { body: { email: f.owner.email } });
      await expectStatus(200, 'GET', '/admin/me', owner);
      await expectStatus(401, 'GET', '/admin/me', player);

      // The admin document store.
      const store = `/document-store/${f.orgId}/${f.projectId}`;
      await expectStatus(200, 'GET', `${store}/collections?page=1&page_size=10`, viewer);
      await expectStatus(422, 'GET', `${store}/collections?page=0`, viewer);
      await expectStatus(404, 'GET', `${store}/collections`, stranger);
      await expectStatus(200, 'GET', `${store}/collections/users?page_size=1`, viewer);
      await expectStatus(400, 'GET', `${store}/collections/users?parent_path=odd`, viewer);
      await expectStatus(200, 'GET', `${store}/docs/users/u1`, viewer);
      await expectStatus(404, 'GET', `${store}/docs/users/none`, viewer);
      await expectStatus(200, 'PUT', `${store}/docs/users/u9`, { ...owner, body: { data: { by: 'admin' } } });
      await expectStatus(403, 'PUT', `${store}/docs/users/u9`, { ...viewer, body: { data: {} } });
      await expectStatus(415, 'PUT', `${store}/docs/users/u9`, { ...owner, raw: 'x', contentType: 'text/plain' });
      await expectStatus(413, 'PUT', `${store}/docs/users/u9`, { ...owner, body: { data: { big: 'x'.repeat(5000) } } });
      await expectStatus(200, 'PATCH', `${store}/docs/users/u9`, { ...owner, body: { data: { more: 1 } } });
      await expectStatus(422, 'PATCH', `${store}/docs/users/u9`, { ...owner, body: {} });
      await expectStatus(200, 'DELETE', `${store}/docs/users/u9`, owner);
      await expectStatus(404, 'DELETE', `${store}/docs/users/u9`, owner);

      // Projects, clients, users, roles.
      await expectStatus(200, 'GET', `/admin/orgs/${f.orgId}/projects`, viewer);
      await expectStatus(404, 'GET', `/admin/orgs/${f.other.orgId}/projects`, owner);
      await expectStatus(201, 'POST', `/admin/orgs/${f.orgId}/projects`, { ...owner, body: { name: 'contract' } });
      await expectStatus(403, 'POST', `/admin/orgs/${f.orgId}/projects`, { ...viewer, body: { name: 'no' } });
      const project = `/admin/projects/${f.projectId}`;
      await expectStatus(200, 'GET', project, viewer);
      await expectStatus(404, 'GET', project, stranger);
      await expectStatus(200, 'GET', `${project}/clients`, owner);
      await expectStatus(403, 'GET', `${project}/clients`, { headers: f.editor.headers });
      const issued = await expectStatus(201, 'POST', `${project}/clients`, owner);
      await expectStatus(404, 'POST', `${project}/clients`, stranger);
      await expectStatus(200, 'POST', `${project}/clients/${issued.client_id}/rotate`, owner);
      await expectStatus(404, 'POST', `${project}/clients/cid_none/rotate`, owner);
      await expectStatus(200, 'GET', `${project}/users?page=1&page_size=5`, owner);
      await expectStatus(422, 'GET', `${project}/users?page_size=500`, owner);
      await expectStatus(200, 'GET', `${project}/users/${t.userId}`, owner);
      await expectStatus(404, 'GET', `${project}/users/999999`, owner);
      await expectStatus(200, 'PATCH', `${project}/users/${t.userId}`, {
        ...owner,
        body: { avatar_url: 'https://a/b.png' },
      });
      await expectStatus(400, 'PATCH', `${project}/users/${t.userId}`, { ...owner, body: { roles: ['ghost'] } });
      await expectStatus(200, 'GET', `${project}/roles`, owner);
      await expectStatus(403, 'GET', `${project}/roles`, viewer);
      await expectStatus(201, 'POST', `${project}/roles`, {
        ...owner,
        body: { name: 'tester', permissions: ['client.documents'] },
      });
      await expectStatus(409, 'POST', `${project}/roles`, { ...owner, body: { name: 'tester', permissions: [] } });
      await expectStatus(200, 'PUT', `${project}/roles/tester`, { ...owner, body: { permissions: [] } });
      await expectStatus(404, 'PUT', `${project}/roles/ghost`, { ...owner, body: { permissions: [] } });

      // Server keys (§9), a key on its project's routes, and disabling a user (§13).
      const keys = `${project}/server-keys`;
      const key = await expectStatus(201, 'POST', keys, { ...owner, body: { name: 'game server', role: 'viewer' } });
      await expectStatus(422, 'POST', keys, { ...owner, body: { name: 'bad', role: 'owner' } });
      await expectStatus(403, 'POST', keys, { ...viewer, body: { name: 'no', role: 'viewer' } });
      await expectStatus(200, 'GET', keys, viewer);
      await expectStatus(404, 'GET', keys, stranger);
      const byKey = { headers: { authorization: `Bearer ${key.key}` } };
      await expectStatus(200, 'GET', `${store}/docs/users/u1`, byKey);
      await expectStatus(403, 'PUT', `${store}/docs/users/u1`, { ...byKey, body: { data: {} } });
      await expectStatus(401, 'GET', '/documents/docs/users/u1', { headers: { ...client, ...byKey.headers } });
      await expectStatus(200, 'DELETE', `${keys}/${key.id}`, owner);
      await expectStatus(404, 'DELETE', `${keys}/${key.id}`, owner);
      await expectStatus(401, 'GET', project, byKey);

      // Webhook registrations (§16).
      const webhooks = `${project}/webhooks`;
      const webhook = await expectStatus(201, 'POST', webhooks, {
        ...owner,
        body: { url: 'https://hooks.example/cds', events: ['document.written', 'leaderboards.*'] },
      });
      await expectStatus(422, 'POST', webhooks, {
        ...owner,
        body: { url: 'ftp://x.example', events: ['user.created'] },
      });
      await expectStatus(403, 'POST', webhooks, { ...viewer, body: { url: 'https://x.example', events: ['user.*'] } });
      await expectStatus(200, 'GET', webhooks, viewer);
      await expectStatus(404, 'GET', webhooks, stranger);
      await expectStatus(200, 'GET', `${webhooks}/${webhook.id}/deliveries?status=failed`, viewer);
      await expectStatus(404, 'GET', `${webhooks}/999999/deliveries`, viewer);
      await expectStatus(404, 'POST', `${webhooks}/${webhook.id}/deliveries/${crypto.randomUUID()}/retry`, owner);
      // A failed delivery (as the deliveries view keeps one) to retry.
      const eventId = crypto.randomUUID();
      await t.app.services.storage.webhookDeliveries.record(
        f.projectId,
        [
          {
            webhookId: webhook.id,
            seq: 1,
            eventId,
            type: 'document.written',
            status: 'failed',
            attempts: 3,
            lastStatusCode: 500,
            lastError: 'the receiver answered 500',
            nextAttemptAt: null,
            firstAttemptAt: Date.now(),
            redeliver: false,
            json: '{}',
          },
        ],
        100,
      );
      await expectStatus(200, 'POST', `${webhooks}/${webhook.id}/deliveries/${eventId}/retry`, owner);
      await expectStatus(200, 'DELETE', `${webhooks}/${webhook.id}`, owner);
      await expectStatus(404, 'DELETE', `${webhooks}/${webhook.id}`, owner);
      const disabled = await expectStatus(200, 'PATCH', `${project}/users/${signup.user.id}`, {
        ...owner,
        body: { disabled: true },
      });
      expect(disabled.disabled).toBe(true);
      await expectStatus(401, 'POST', '/auth/login', {
        headers: client,
        body: { username: 'contract_user', password: 'password-123' },
      });
      await expectStatus(422, 'PATCH', `${project}/users/${signup.user.id}`, { ...owner, body: { disabled: 1 } });
      await expectStatus(200, 'PATCH', `${project}/users/${signup.user.id}`, { ...owner, body: { disabled: false } });

      // Declared indexes and the plan of a query (§15).
      const indexes = `${project}/indexes`;
      const declared = await expectStatus(202, 'POST', indexes, {
        ...owner,
        body: { collection: 'users', fields: [{ field: 'score' }, { field: 'name', order: 'desc' }] },
      });
      await expectStatus(409, 'POST', indexes, {
        ...owner,
        body: {
          collection: 'users',
          fields: [
            { field: 'score', order: 'asc' },
            { field: 'name', order: 'desc' },
          ],
        },
      });
      await expectStatus(422, 'POST', indexes, { ...owner, body: { collection: 'users', fields: [] } });
      await expectStatus(403, 'POST', indexes, { ...viewer, body: { collection: 'users', fields: [{ field: 'a' }] } });
      await t.app.services.indexes.whenBuilt();
      await expectStatus(200, 'GET', indexes, viewer);
      await expectStatus(404, 'GET', indexes, stranger);
      await expectStatus(200, 'GET', `${indexes}/explain?collection=users&where=score__gte:3`, viewer);
      await expectStatus(400, 'GET', `${indexes}/explain?collection=users&where=score`, viewer);
      await expectStatus(200, 'DELETE', `${indexes}/${declared.id}`, owner);
      await expectStatus(404, 'DELETE', `${indexes}/${declared.id}`, owner);

      // Expiring documents (§17).
      const ttl = `${project}/ttl/sessions`;
      await expectStatus(404, 'GET', ttl, viewer);
      await expectStatus(200, 'PUT', ttl, { ...owner, body: { field: 'expires_at' } });
      await expectStatus(422, 'PUT', ttl, { ...owner, body: { field: 5 } });
      await expectStatus(403, 'PUT', ttl, { ...viewer, body: { field: 'x' } });
      await expectStatus(200, 'GET', ttl, viewer);
      await t.app.services.indexes.whenBuilt();
      await expectStatus(200, 'DELETE', ttl, owner);
      await expectStatus(404, 'DELETE', ttl, owner);

      // Leaderboards: administration, then the client routes on both prefixes (§5).
      const boards = `${project}/leaderboards`;
      await expectStatus(201, 'POST', boards, {
        ...owner,
        body: {
          slug: 'season',
          name: 'Season',
          leagues: [{ slug: 'all' }],
          rewards: [{ league: 'all', rank_from: 1, rank_to: 1, reward: { coins: 5 } }],
        },
      });
      await expectStatus(409, 'POST', boards, { ...owner, body: { slug: 'season', name: 'Again' } });
      await expectStatus(422, 'POST', boards, { ...owner, body: { slug: 'bad', name: 'Bad', type: 'AT_RESET' } });
      await expectStatus(200, 'GET', boards, owner);
      // Leaderboard reads take any admin role (§13).
      await expectStatus(200, 'GET', boards, viewer);
      await expectStatus(403, 'POST', boards, { ...viewer, body: { slug: 'v', name: 'V' } });
      await expectStatus(200, 'GET', `${boards}/season`, owner);
      await expectStatus(404, 'GET', `${boards}/none`, owner);
      await expectStatus(200, 'PATCH', `${boards}/season`, { ...owner, body: { description: 'Weekly fun' } });
      await expectStatus(400, 'PATCH', `${boards}/season`, { ...owner, body: { sort: 'asc' } });
      await expectStatus(200, 'POST', `${boards}/season/stats`, { ...owner, body: { user_id: t.userId, value: 42 } });
      await expectStatus(404, 'POST', `${boards}/season/stats`, { ...owner, body: { user_id: 999999, value: 1 } });

      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        await expectStatus(
          200,
          'GET',
          `${prefix}/season/bundle?include=meta,leagues,rewards,entries,users,me&expand=profile`,
          player,
        );
        await expectStatus(400, 'GET', `${prefix}/season/bundle`, player);
        await expectStatus(200, 'GET', `${prefix}/season/users?limit=10`, player);
        await expectStatus(400, 'GET', `${prefix}/season/users?source=assigned`, player);
        await expectStatus(404, 'GET', `${prefix}/season/history`, player);
        await expectStatus(200, 'POST', `${prefix}/season/stats`, { ...player, body: { value: 50 } });
        await expectStatus(422, 'POST', `${prefix}/season/stats`, { ...player, body: { value: 'x' } });
      }
      // Anti-cheat boards (§9): the new fields in every board answer, 403 for clients, 422 out of bounds.
      await expectStatus(201, 'POST', boards, {
        ...owner,
        body: { slug: 'guarded', name: 'Guarded', client_submit: false, stat_min: 0, stat_max: 10 },
      });
      await expectStatus(422, 'POST', boards, { ...owner, body: { slug: 'x', name: 'X', stat_min: 2, stat_max: 1 } });
      await expectStatus(200, 'PATCH', `${boards}/guarded`, { ...owner, body: { stat_max: 100.5 } });
      await expectStatus(200, 'POST', `${boards}/guarded/stats`, {
        ...owner,
        body: { user_id: t.userId, value: 100.5 },
      });
      await expectStatus(422, 'POST', `${boards}/guarded/stats`, { ...owner, body: { user_id: t.userId, value: -1 } });
      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        await expectStatus(403, 'POST', `${prefix}/guarded/stats`, { ...player, body: { value: 1 } });
        await expectStatus(200, 'GET', `${prefix}/guarded/bundle?include=meta`, player);
      }
      await expectStatus(200, 'PATCH', `${boards}/guarded`, { ...owner, body: { client_submit: true } });
      await expectStatus(422, 'POST', `/leaderboards/guarded/stats`, { ...player, body: { value: 101 } });

      // §18: around me and a chosen set of users, in the period that has stats.
      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        await expectStatus(200, 'GET', `${prefix}/season/around?radius=2&expand=profile`, player);
        await expectStatus(422, 'GET', `${prefix}/season/around?radius=0`, player);
        await expectStatus(200, 'GET', `${prefix}/season/users?user_ids=${t.userId},999&expand=profile`, player);
        await expectStatus(422, 'GET', `${prefix}/season/users?user_ids=x`, player);
      }
      // The same reads for admins (the console): around a named user, and a chosen set.
      await expectStatus(200, 'GET', `${boards}/season/around?user_id=${t.userId}&radius=2&expand=profile`, viewer);
      await expectStatus(422, 'GET', `${boards}/season/around?radius=2`, viewer);
      await expectStatus(404, 'GET', `${boards}/season/around?user_id=999999`, viewer);
      await expectStatus(404, 'GET', `${boards}/season/around?user_id=${t.userId}`, stranger);
      await expectStatus(200, 'GET', `${boards}/season/users?user_ids=${t.userId},999`, viewer);

      // §18 tournaments: the board fields, the board list, joins and the refusals of a player's submission.
      await expectStatus(201, 'POST', boards, {
        ...owner,
        body: { slug: 'cup', name: 'Cup', join_required: true, max_participants: 1, max_submissions: 1 },
      });
      const window = { starts_at: '2000-01-01T00:00:00Z', ends_at: '1999-01-01T00:00:00Z' };
      await expectStatus(422, 'POST', boards, { ...owner, body: { slug: 'x', name: 'X', ...window } });
      await expectStatus(200, 'PATCH', `${boards}/cup`, { ...owner, body: { starts_at: window.starts_at } });
      await expectStatus(403, 'POST', '/leaderboards/cup/stats', { ...player, body: { value: 1 } });
      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        await expectStatus(200, 'GET', prefix, player);
        await expectStatus(401, 'GET', prefix, { headers: client });
        await expectStatus(200, 'POST', `${prefix}/cup/join`, player);
        await expectStatus(404, 'POST', `${prefix}/none/join`, player);
      }
      await expectStatus(200, 'POST', '/leaderboards/cup/stats', { ...player, body: { value: 1 } });
      await expectStatus(429, 'POST', '/leaderboards/cup/stats', { ...player, body: { value: 2 } });
      const rival = await t.app.services.accounts.createUser(t.project.projectId, {
        username: 'rival',
        password: 'password-123',
      });
      const rivalToken = (await t.app.services.accounts.issueToken(t.project.projectId, rival.id)).access_token;
      const rivalHeaders = { headers: { ...player.headers, authorization: `Bearer ${rivalToken}` } };
      await expectStatus(409, 'POST', '/leaderboards/cup/join', rivalHeaders);
      await expectStatus(200, 'PATCH', `${boards}/cup`, { ...owner, body: { ends_at: '2001-01-01T00:00:00Z' } });
      await expectStatus(409, 'POST', '/client/leaderboards/cup/stats', { ...player, body: { value: 3 } });

      // §16 server functions: an RPC's result, an unknown name.
      await expectStatus(200, 'POST', '/functions/echo', { ...player, body: { a: [1] } });
      await expectStatus(404, 'POST', '/functions/none', player);
      await expectStatus(200, 'GET', `${project}/functions`, viewer);
      await expectStatus(404, 'GET', `${project}/functions`, stranger);

      await expectStatus(200, 'POST', `${boards}/season/reset`, owner);
      await expectStatus(404, 'POST', `${boards}/none/reset`, owner);
      for (const prefix of ['/leaderboards', '/client/leaderboards']) {
        await expectStatus(200, 'GET', `${prefix}/season/history?expand=profile`, player);
        await expectStatus(200, 'GET', `${prefix}/season/history/me?limit=5`, player);
        await expectStatus(404, 'GET', `${prefix}/none/history/me`, player);
      }
      await expectStatus(200, 'GET', `${boards}/season/users?limit=5&expand=profile`, viewer);
      await expectStatus(422, 'GET', `${boards}/season/users?limit=0`, viewer);
      await expectStatus(200, 'GET', `${boards}/season/history?expand=profile`, viewer);
      await expectStatus(404, 'GET', `${boards}/season/history?league=none`, viewer);

      // Admin query and realtime tree (§13): any admin role reads, document.manage writes.
      await expectStatus(200, 'GET', `${project}/query/notes?where=n__gte:0&order_by=-n&limit=5`, viewer);
      await expectStatus(400, 'GET', `${project}/query/notes?where=n`, viewer);
      await expectStatus(404, 'GET', `${project}/query/notes`, stranger);
      const tree = `${project}/realtime/db`;
      await expectStatus(200, 'PUT', `${tree}/console/a`, { ...owner, body: { value: { hp: 1 } } });
      await expectStatus(403, 'PUT', `${tree}/console/a`, { ...viewer, body: { value: 1 } });
      await expectStatus(412, 'PUT', `${tree}/console/a`, {
        ...owner,
        headers: { ...owner.headers, 'if-match': '"x"' },
        body: { value: 1 },
      });
      await expectStatus(200, 'PATCH', `${tree}/console`, { ...owner, body: { value: { 'a/hp': 2 } } });
      await expectStatus(422, 'PATCH', `${tree}/console`, { ...owner, body: { value: 3 } });
      await expectStatus(200, 'GET', `${tree}/console?shallow=true`, viewer);
      await expectStatus(200, 'GET', tree, viewer);
      await expectStatus(404, 'GET', tree, stranger);
      await expectStatus(404, 'GET', `${tree}/console`, stranger);
      await expectStatus(404, 'GET', boards, stranger);
      await expectStatus(403, 'DELETE', `${tree}/console/a`, viewer);
      await expectStatus(200, 'DELETE', `${tree}/console/a`, owner);

      // Access rules (§9 Management).
      const rules = `${project}/rules`;
      const ownerOnly = { documents: [{ match: 'users/{uid}', allow: { read: 'request.auth.uid == uid' } }] };
      await expectStatus(200, 'GET', rules, viewer);
      await expectStatus(404, 'GET', rules, stranger);
      await expectStatus(200, 'PUT', rules, { ...owner, body: { rules: ownerOnly } });
      await expectStatus(400, 'PUT', rules, {
        ...owner,
        body: { rules: { documents: [{ match: 'a{b}', allow: {} }] } },
      });
      await expectStatus(422, 'PUT', rules, { ...owner, body: { rules: [] } });
      await expectStatus(403, 'PUT', rules, { ...viewer, body: { rules: ownerOnly } });
      await expectStatus(200, 'GET', `${rules}/revisions`, viewer);
      await expectStatus(404, 'GET', `${rules}/revisions`, stranger);
      const testCase = { area: 'documents', method: 'get', path: `users/${t.userId}`, user_id: t.userId };
      await expectStatus(200, 'POST', `${rules}/test`, { ...viewer, body: { cases: [testCase] } });
      await expectStatus(422, 'POST', `${rules}/test`, {
        ...viewer,
        body: { cases: [{ ...testCase, user_id: 999999 }] },
      });
      await expectStatus(400, 'POST', `${rules}/test`, { ...viewer, body: { rules: { x: [] }, cases: [testCase] } });
      await expectStatus(200, 'PUT', rules, { ...owner, body: { rules: {} } });

      expect(contract.failures).toEqual([]);
      expect(contract.uncovered()).toEqual([]);
    });

    it('documents every admin route', () => {
      const names = contract.operationNames.filter((name) => /\/(admin|document-store)\//.test(name));
      expect(names.length).toBeGreaterThanOrEqual(30);
    });
  });
}
