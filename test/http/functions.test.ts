/**
 * Server functions' RPCs (§16) on every engine: `POST /functions/{name}` for a player with
 * `client.functions` or a server key alone; the result, `reject`, a throw (500, logged, never
 * shown), the time limit (504), an unknown name (404, after the permission: 403), the context
 * (project, caller, request id, clock) and `ctx.admin` writes that are ordinary commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, type FunctionContext, HttpError, reject } from '../../src/functions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';

const played = defineFunctions({
  projects: '*',
  rpc: {
    echo: async (_ctx, input) => input,
    nothing: () => undefined,
    context: (ctx: FunctionContext) => ({
      project: ctx.project_id,
      caller: ctx.caller,
      request: ctx.request_id,
      now: ctx.now(),
    }),
    refuse: () => reject(418, 'No coffee here'),
    crash: () => {
      throw new Error('secret internals');
    },
    hang: () => new Promise(() => undefined),
    notJson: () => 10n,
    claimDaily: async (ctx: FunctionContext) => {
      if (!ctx.caller || !('user_id' in ctx.caller)) return reject(403, 'Players only');
      const path = `wallets/u${ctx.caller.user_id}`;
      const wallet = await ctx.admin.documents.get(path);
      if ((wallet?.data as { day?: number } | undefined)?.day === 1) reject(409, 'Already claimed today');
      const written = await ctx.admin.documents.put(path, {
        data: { day: 1 },
        transforms: { coins: { increment: 10 } },
      });
      await ctx.admin.realtime.set(`claims/u${ctx.caller.user_id}`, true);
      return { coins: (written.data as { coins: number }).coins, version: written.version };
    },
    // Every call of the admin API once, with what each answered.
    everyAdminCall: async ({ admin }: FunctionContext, input) => {
      const userId = (input as { user: number }).user;
      const put = await admin.documents.put('items/a', { data: { n: 1, tag: 'x' } });
      const patched = await admin.documents.patch('items/a', { data: { tag: 'y' }, if_match: put.version });
      const stale = await admin.documents
        .patch('items/a', { data: { tag: 'z' }, if_match: put.version })
        .catch((error: unknown) => (error instanceof HttpError ? error.status : 'not an HttpError'));
      const queried = await admin.documents.query('items', { where: ['tag__exact:y'] });
      const deleted = await admin.documents.delete('items/a');
      const set = await admin.realtime.set('rooms/r1', { x: 1 });
      const updated = await admin.realtime.update('rooms/r1', { y: 2 });
      const merged = await admin.realtime.get('rooms/r1');
      const removed = await admin.realtime.remove('rooms/r1');
      return {
        put: { created: put.created, data: put.data },
        patched: { data: patched.data, newer: patched.version > put.version },
        stale,
        queried: queried.documents.map((d) => d.path),
        deleted: deleted.deleted,
        gone: await admin.documents.get('items/a'),
        versions: [set.version < updated.version, updated.version < removed.version],
        merged,
        emptied: await admin.realtime.get('rooms/r1'),
        submitted: await admin.leaderboards.submit('score', userId, 7),
        me: await admin.leaderboards.me('score', userId),
        user: await admin.users.get(userId),
      };
    },
    adminErrors: async (ctx: FunctionContext) => {
      try {
        await ctx.admin.documents.put('bad', { data: {} });
        return 'no error';
      } catch (error) {
        return error instanceof HttpError ? { status: error.status, detail: error.detail } : 'another error';
      }
    },
  },
});
const otherProjectOnly = defineFunctions({ projects: [999_999], rpc: { elsewhere: () => 'no' } });

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`server functions: RPC (§16) on ${engine.name}`, () => {
    let t: TestApp;
    const call = (name: string, body?: unknown, headers: Record<string, string> = t.headers) =>
      t.app.http.inject({
        method: 'POST',
        url: `/functions/${name}`,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });

    beforeAll(async () => {
      t = await startTestApp(
        engine,
        // Long enough for everyAdminCall's dozen commits on a loaded CI machine (200 ms was not).
        { CDS_FUNCTION_TIMEOUT_MS: '2000' },
        {
          functions: FunctionRegistry.of([
            { file: 'played.ts', definition: played },
            { file: 'other.ts', definition: otherProjectOnly },
          ]),
        },
      );
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers {result} with what the function returned: any JSON in, null for no body or undefined', async () => {
      for (const input of [{ a: [1, 'x', null] }, 'text', 42, false, null]) {
        const res = await call('echo', input);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ result: input });
      }
      expect((await call('echo')).json()).toEqual({ result: null });
      expect((await call('nothing', { x: 1 })).json()).toEqual({ result: null });
    });

    it('gives the function its project, caller, request id and the service clock', async () => {
      const res = await call('context');
      expect(res.statusCode, res.body).toBe(200);
      const { result } = res.json();
      expect(result.project).toBe(t.project.projectId);
      expect(result.caller).toEqual({ user_id: t.userId, roles: ['player'] });
      expect(typeof result.request).toBe('string');
      expect(Math.abs(result.now - Date.now())).toBeLessThan(60_000);
    });

    it('answers reject() with its status and detail, a throw with 500 and a hang with 504, telling nothing more', async () => {
      const refused = await call('refuse');
      expect(refused.statusCode).toBe(418);
      expect(refused.json()).toEqual({ detail: 'No coffee here' });
      const crashed = await call('crash');
      expect(crashed.statusCode).toBe(500);
      expect(crashed.json()).toEqual({ detail: 'Function failed' });
      expect(crashed.body).not.toContain('secret');
      const notJson = await call('notJson');
      expect(notJson.statusCode).toBe(500);
      expect(notJson.json()).toEqual({ detail: 'Function failed' });
      const hung = await call('hang');
      expect(hung.statusCode).toBe(504);
      expect(hung.json()).toEqual({ detail: 'Function timed out' });
      // The service goes on.
      expect((await call('echo', 1)).json()).toEqual({ result: 1 });
    });

    it('answers 404 for a name no module serves to this project, 403 first without the permission', async () => {
      expect((await call('missing')).json()).toEqual({ detail: 'Function not found' });
      expect((await call('missing')).statusCode).toBe(404);
      expect((await call('elsewhere')).statusCode).toBe(404);
      await t.app.services.accounts.createRole(t.project.projectId, 'mute', ['client.documents']);
      const muted = await t.app.services.accounts.createUser(t.project.projectId, {
        username: 'muted',
        password: 'password-123',
        roles: ['mute'],
      });
      const token = (await t.app.services.auth.issueAccessToken(t.project.projectId, muted.id)).access_token;
      const headers = { ...t.headers, authorization: `Bearer ${token}` };
      for (const name of ['echo', 'missing']) {
        const res = await call(name, null, headers);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ detail: "Permission 'client.functions' required" });
      }
      expect((await call('echo', 1, { ...t.headers, authorization: 'Bearer nope' })).statusCode).toBe(401);
    });

    it('takes a server key alone, with the key as the caller', async () => {
      const { key, id } = await t.app.services.serverKeys.create(t.project.projectId, { name: 'game', role: 'viewer' });
      const res = await call('context', null, { authorization: `Bearer ${key}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().result).toMatchObject({ project: t.project.projectId, caller: { server_key: id } });
      expect((await call('claimDaily', null, { authorization: `Bearer ${key}` })).json()).toEqual({
        detail: 'Players only',
      });
    });

    it('writes through ctx.admin as ordinary commits (transforms, versions), past the access rules', async () => {
      const first = await call('claimDaily');
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json().result.coins).toBe(10);
      const stored = await t.app.services.documents.get(t.project.projectId, `wallets/u${t.userId}`);
      expect(first.json().result.version).toBe(stored.version);
      expect(JSON.parse(stored.document).data).toEqual({ day: 1, coins: 10 });
      expect((await t.app.services.tree.get(t.project.projectId, `claims/u${t.userId}`)).value).toBe(true);
      const again = await call('claimDaily');
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ detail: 'Already claimed today' });
    });

    it('answers every call of the admin API as the client routes would, writes as ordinary commits', async () => {
      await t.app.services.leaderboards.create(t.project.projectId, definition('score'));
      const res = await call('everyAdminCall', { user: t.userId });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().result).toMatchObject({
        put: { created: true, data: { n: 1, tag: 'x' } },
        patched: { data: { n: 1, tag: 'y' }, newer: true },
        stale: 412,
        queried: ['items/a'],
        deleted: 'items/a',
        gone: null,
        versions: [true, true],
        merged: { x: 1, y: 2 },
        emptied: null,
        submitted: { user_id: t.userId, stat_value: 7, rank: 1 },
        me: { user_id: t.userId, stat_value: 7, rank: 1 },
        user: { id: t.userId },
      });
    });

    it('turns the admin API’s refusals into HttpError with the §0 status and detail', async () => {
      const res = await call('adminErrors');
      expect(res.json().result).toMatchObject({ status: 400 });
    });
  });
}
