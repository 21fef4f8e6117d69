/**
 * Before hooks (§16) on every engine: `documents.write` (PUT, POST, PATCH, DELETE, batches),
 * `realtime.write` (REST), `leaderboards.stat` and `auth.signup` accept, replace or reject a
 * client's write; a hook past `CDS_HOOK_TIMEOUT_MS` fails the write with 503 and a throw with 500,
 * writing nothing; writes of the admin API and of `ctx.admin` run no hook. The `documents.write`
 * hook is tried as a plain function (on SQLite a single write runs it inside its commit, and a
 * promise it answers with is waited for after it) and as an `async` one (run before the commit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import {
  type DocumentWriteArgument,
  defineFunctions,
  type FunctionContext,
  type JsonObject,
  reject,
} from '../../src/functions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { definition } from '../support/leaderboards.js';
import { MemoryRulesSource } from '../support/rules.js';

/** How often each hook ran, by a key the test chooses. */
const runs = new Map<string, number>();
const ran = (key: string) => runs.set(key, (runs.get(key) ?? 0) + 1);

/** The `documents.write` hook of the tests, a plain function: it answers with a promise where it waits. */
function documentsWrite(
  ctx: FunctionContext,
  write: DocumentWriteArgument,
): JsonObject | undefined | Promise<JsonObject> {
  const [collection] = write.path.split('/');
  ran(`documents:${write.path}`);
  switch (collection) {
    case 'wallets':
      if (Number(write.data?.coins) > 1e6) reject(422, 'Too many coins');
      return undefined;
    case 'chat':
      return { ...write.data, text: String(write.data?.text ?? '').replaceAll('darn', '****') };
    case 'seen':
      return {
        ...write.data,
        seen: {
          op: write.op,
          stored: write.stored as JsonObject | null,
          transforms: write.transforms,
          caller: ctx.caller,
        } as JsonObject,
      };
    case 'meddle': {
      // Changes what it is shown in place: the write and its change log must not see it.
      const tags = write.stored?.data.tags;
      if (Array.isArray(tags)) tags.push('stored');
      if (write.stored) write.stored.data.n = -1;
      if (Array.isArray(write.data?.tags) && write.op === 'patch') write.data.tags.push('merged');
      return undefined;
    }
    case 'kept':
      if (write.op === 'delete') reject(403, 'Keep it');
      return undefined;
    case 'slow':
      return new Promise(() => undefined);
    case 'broken':
      throw new Error('hook internals');
    case 'odd':
      return [1, 2] as unknown as JsonObject;
    case 'approved':
      return { ...write.data, approved: true };
    case 'racy':
      // The first run changes the document under the write: the hook runs again on the new one.
      if ((runs.get(`documents:${write.path}`) ?? 0) === 1) {
        return ctx.admin.documents
          .patch(write.path, { data: { sneaky: 1 } })
          .then(() => ({ ...write.data, hooked: true }));
      }
      return { ...write.data, hooked: true };
    case 'counter':
      return { n: Number(write.stored?.data.n ?? 0) + 1 };
    default:
      return undefined;
  }
}

type HookStyle = 'plain' | 'async';

const hooksOf = (style: HookStyle) =>
  defineFunctions({
    projects: '*',
    rpc: {
      adminWrite: async (ctx) => (await ctx.admin.documents.put('chat/by-admin', { data: { text: 'darn' } })).data,
    },
    before: {
      'documents.write': style === 'plain' ? documentsWrite : async (ctx, write) => documentsWrite(ctx, write),
      'realtime.write': (_ctx, write) => {
        ran(`realtime:${write.path}`);
        if (write.path.startsWith('scores/') && typeof write.value === 'number' && write.value > 100) {
          reject(422, 'Too high');
        }
        if (write.path.startsWith('names/') && typeof write.value === 'string') return write.value.toUpperCase();
        if (write.path.startsWith('rooms/') && write.op === 'patch')
          return { ...(write.value as JsonObject), by: 'hook' };
        if (write.path.startsWith('locked/') && write.op === 'delete') reject(403, 'Locked');
        if (write.path.startsWith('bad/')) return { 'not/a/key': 1 };
        return undefined;
      },
      'leaderboards.stat': (_ctx, stat) => {
        if (stat.value > 1000) reject(422, 'Cheater');
        return stat.value * 2;
      },
      'auth.signup': (_ctx, account) => {
        ran(`signup:${account.device_id ?? account.username}`);
        if (account.nickname === 'badword') reject(422, 'Pick another nickname');
        return { nickname: `${account.nickname}!` };
      },
    },
  });

for (const [engine, style] of engines.flatMap((engine) =>
  (['plain', 'async'] as const).map((style) => [engine, style] as const),
)) {
  describe.skipIf(engine.unavailable)(`before hooks (§16) on ${engine.name}, documents.write ${style}`, () => {
    let t: TestApp;
    const rules = new MemoryRulesSource();
    const call = (method: string, url: string, payload?: unknown, headers = t.headers) =>
      t.app.http.inject({
        method: method as 'PUT',
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const stored = async (path: string) => {
      const res = await call('GET', `/documents/docs/${path}`);
      return res.statusCode === 200 ? res.json().data : null;
    };

    beforeAll(async () => {
      runs.clear();
      const functions = FunctionRegistry.of([{ file: 'hooks.ts', definition: hooksOf(style) }]);
      // Long enough for the racy hook's own commit on a loaded machine; the hanging hook waits it out.
      t = await startTestApp(engine, { CDS_HOOK_TIMEOUT_MS: '1000' }, { functions, rules });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('documents.write: undefined writes as asked, a replacement is stored instead, reject() refuses with its status', async () => {
      expect((await call('PUT', '/documents/docs/wallets/a', { data: { coins: 5 } })).json().data).toEqual({
        coins: 5,
      });
      const refused = await call('PUT', '/documents/docs/wallets/a', { data: { coins: 2e6 } });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({ detail: 'Too many coins' });
      expect(await stored('wallets/a')).toEqual({ coins: 5 });
      const put = await call('PUT', '/documents/docs/chat/m1', { data: { text: 'oh darn it' } });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json().data).toEqual({ text: 'oh **** it' });
      expect(await stored('chat/m1')).toEqual({ text: 'oh **** it' });
      const posted = await call('POST', '/documents/collections/chat', { data: { text: 'darn' } });
      expect(posted.statusCode).toBe(201);
      expect(posted.json().data).toEqual({ text: '****' });
      const deleted = await call('DELETE', '/documents/docs/kept/k');
      expect(deleted.statusCode).toBe(404);
      await call('PUT', '/documents/docs/kept/k', { data: {} });
      expect((await call('DELETE', '/documents/docs/kept/k')).json()).toEqual({ detail: 'Keep it' });
      expect(await stored('kept/k')).toEqual({});
    });

    it('documents.write sees the op, PATCH merged into the stored document, the transforms and the caller; transforms apply to the replacement', async () => {
      const first = await call('PUT', '/documents/docs/seen/s', { data: { a: 1 } });
      expect(first.json().data.seen).toEqual({
        op: 'put',
        stored: null,
        transforms: null,
        caller: { user_id: t.userId, roles: ['player'] },
      });
      const version = Number(String(first.headers.etag).replaceAll('"', ''));
      const patched = await call('PATCH', '/documents/docs/seen/s', {
        data: { b: 2 },
        transforms: { n: { increment: 3 } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const data = patched.json().data;
      expect(data).toMatchObject({ a: 1, b: 2, n: 3 });
      expect(data.seen.op).toBe('patch');
      expect(data.seen.transforms).toEqual({ n: { increment: 3 } });
      expect(data.seen.stored).toMatchObject({ path: 'seen/s', version, data: { a: 1 } });
    });

    it('documents.write is shown stored: null for an expired document (§17: absent to the write)', async () => {
      const { projectId } = t.project;
      await t.app.services.ttl.set(projectId, 'seen', 'expires');
      try {
        await t.app.services.documents.put(projectId, 'seen/old', { expires: 1, a: 1 });
        const put = await call('PUT', '/documents/docs/seen/old', { data: { b: 2 } });
        expect(put.statusCode, put.body).toBe(200);
        expect(put.json()).toMatchObject({ created: true, data: { seen: { stored: null } } });
      } finally {
        await t.app.services.ttl.clear(projectId, 'seen');
      }
    });

    it('a hook changing the stored document it is shown in place changes neither the write nor its change log', async () => {
      const { projectId } = t.project;
      const first = await call('PUT', '/documents/docs/meddle/m', { data: { n: 1, tags: ['a'] } });
      const version = Number(String(first.headers.etag).replaceAll('"', ''));
      const patched = await call('PATCH', '/documents/docs/meddle/m', { data: { x: 2 } });
      expect(patched.json().data).toEqual({ n: 1, tags: ['a'], x: 2 });
      const put = await call('PUT', '/documents/docs/meddle/m', { data: { n: 3 } });
      expect(put.json().data).toEqual({ n: 3 });
      expect(await stored('meddle/m')).toEqual({ n: 3 });
      const history = await t.app.services.storage.documents.changesSince(projectId, version);
      const previous = history?.commits.flatMap((commit) =>
        commit.changes.filter((change) => change.path === 'meddle/m').map((change) => change.previous),
      );
      expect(previous).toEqual([
        { n: 1, tags: ['a'] },
        { n: 1, tags: ['a'], x: 2 },
      ]);
    });

    it('checks path, body and rules before the hook, and the rules judge the write as asked, not the replacement', async () => {
      expect((await call('PUT', '/documents/docs/slow', { data: {} })).statusCode).toBe(400);
      expect((await call('PATCH', '/documents/docs/slow/x', { data: 1 })).statusCode).toBe(422);
      const { projectId } = t.project;
      rules.set(projectId, {
        documents: [
          { match: 'approved/{id}', allow: { read: 'true', write: '!has(request.resource.data.approved)' } },
          { match: 'slow/{id}', allow: { read: 'true', write: 'false' } },
        ],
      });
      try {
        // Denied by the rules: answered at once, the hanging hook is never reached.
        expect((await call('PUT', '/documents/docs/slow/x', { data: {} })).statusCode).toBe(403);
        expect((await call('PUT', '/documents/docs/approved/x', { data: { approved: true } })).statusCode).toBe(403);
        const allowed = await call('PUT', '/documents/docs/approved/x', { data: { n: 1 } });
        expect(allowed.statusCode, allowed.body).toBe(200);
        expect(allowed.json().data).toEqual({ n: 1, approved: true });
      } finally {
        rules.clear(projectId);
      }
    });

    it('a hook past its time answers 503, a throw or an unusable replacement 500, and nothing is written', async () => {
      const slow = await call('PUT', '/documents/docs/slow/x', { data: {} });
      expect(slow.statusCode).toBe(503);
      expect(slow.json()).toEqual({ detail: 'Hook timed out' });
      for (const path of ['broken/x', 'odd/x']) {
        const failed = await call('PUT', `/documents/docs/${path}`, { data: {} });
        expect(failed.statusCode).toBe(500);
        expect(failed.json()).toEqual({ detail: 'Function failed' });
        expect(failed.body).not.toContain('internals');
      }
      for (const path of ['slow/x', 'broken/x', 'odd/x']) expect(await stored(path)).toBeNull();
      const metrics = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
      for (const outcome of ['timed_out', 'failed', 'rejected', 'ok']) {
        expect(metrics).toMatch(
          new RegExp(`cds_function_calls_total\\{name="before:documents.write",outcome="${outcome}"\\} [1-9]`),
        );
      }
      expect((await call('PUT', '/documents/docs/wallets/after', { data: { coins: 1 } })).statusCode).toBe(200);
    });

    it('runs once per write of a batch: a replacement per write, and one rejection fails the whole batch', async () => {
      const writes = [
        { op: 'put', path: 'chat/b1', data: { text: 'darn' } },
        { op: 'patch', path: 'chat/b1', data: { more: 'darn' } },
        { op: 'put', path: 'wallets/b', data: { coins: 1 } },
      ];
      const done = await call('POST', '/documents/batch', { writes });
      expect(done.statusCode, done.body).toBe(200);
      expect(await stored('chat/b1')).toEqual({ text: '****', more: 'darn' });
      const refused = await call('POST', '/documents/batch', {
        writes: [
          { op: 'put', path: 'chat/b2', data: { text: 'x' } },
          { op: 'put', path: 'wallets/b', data: { coins: 9e6 } },
        ],
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({ detail: 'writes[1]: Too many coins' });
      expect(await stored('chat/b2')).toBeNull();
      expect(await stored('wallets/b')).toEqual({ coins: 1 });
    });

    it('runs the hook again when the document changed before the commit', async () => {
      await t.app.services.documents.put(t.project.projectId, 'racy/r', { start: true });
      const res = await call('PATCH', '/documents/docs/racy/r', { data: { mine: 1 } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual({ start: true, sneaky: 1, mine: 1, hooked: true });
      expect(runs.get('documents:racy/r')).toBe(2);
    });

    it('concurrent writes of one document each see the one before: no update is lost', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => call('PUT', '/documents/docs/counter/c', { data: {} })),
      );
      const statuses = answers.map((answer) => answer.statusCode);
      // In the commit (SQLite: DocumentStore.hooksInCommit) the hook sees the write before; run before the
      // commit, a hook seeing a document changed since runs again, three times at most, then 409.
      const inCommit = style === 'plain' && engine.name === 'sqlite';
      expect(statuses.every((status) => status === 200 || (!inCommit && status === 409))).toBe(true);
      if (inCommit) expect(statuses.filter((status) => status === 200)).toHaveLength(20);
      expect(await stored('counter/c')).toEqual({ n: statuses.filter((status) => status === 200).length });
    });

    it('admin writes and ctx.admin writes run no hook', async () => {
      await t.app.services.documents.put(t.project.projectId, 'chat/admin', { text: 'darn' });
      expect(await stored('chat/admin')).toEqual({ text: 'darn' });
      const rpc = await call('POST', '/functions/adminWrite');
      expect(rpc.json()).toEqual({ result: { text: 'darn' } });
      expect(runs.get('documents:chat/admin')).toBeUndefined();
      expect(runs.get('documents:chat/by-admin')).toBeUndefined();
      await t.app.services.tree.set(t.project.projectId, 'scores/admin', 500);
      expect(runs.get('realtime:scores/admin')).toBeUndefined();
    });

    it('realtime.write over REST: reject, a replaced PUT and PATCH, a refused delete, an unusable replacement', async () => {
      const tooHigh = await call('PUT', '/realtime/db/scores/a', { value: 101 });
      expect(tooHigh.statusCode).toBe(422);
      expect(tooHigh.json()).toEqual({ detail: 'Too high' });
      expect((await call('GET', '/realtime/db/scores/a')).json().value).toBeNull();
      expect((await call('PUT', '/realtime/db/names/a', { value: 'ada' })).json().value).toBe('ADA');
      const patched = await call('PATCH', '/realtime/db/rooms/r', { value: { x: 1 } });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().value).toEqual({ x: 1, by: 'hook' });
      await call('PUT', '/realtime/db/locked/l', { value: 1 });
      expect((await call('DELETE', '/realtime/db/locked/l')).json()).toEqual({ detail: 'Locked' });
      expect((await call('GET', '/realtime/db/locked/l')).json().value).toBe(1);
      const deep = await call('PUT', '/realtime/db/bad/d', { value: 1 });
      expect(deep.statusCode).toBe(500);
      expect(deep.json()).toEqual({ detail: 'Function failed' });
    });

    it('leaderboards.stat may reject or replace the submitted value', async () => {
      await t.app.services.leaderboards.create(t.project.projectId, definition('hooked'));
      const refused = await call('POST', '/leaderboards/hooked/stats', { value: 5000 });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({ detail: 'Cheater' });
      const res = await call('POST', '/leaderboards/hooked/stats', { value: 21 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().stat_value).toBe(42);
      expect((await call('POST', '/leaderboards/missing/stats', { value: 1 })).statusCode).toBe(404);
    });

    it('auth.signup may reject or rename a sign-up, and runs before a device’s first guest login only', async () => {
      const auth = { 'x-client-id': t.headers['x-client-id'], 'x-client-secret': t.headers['x-client-secret'] };
      const signup = (nickname: string, username: string) =>
        call('POST', '/auth/signup', { username, password: 'password-123', nickname }, auth as Record<string, string>);
      const refused = await signup('badword', 'hooked_a');
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({ detail: 'Pick another nickname' });
      expect((await signup('ada', 'hooked_a')).statusCode).toBe(201);
      const login = await call(
        'POST',
        '/auth/login',
        { username: 'hooked_a', password: 'password-123' },
        auth as Record<string, string>,
      );
      const me = await call('GET', '/auth/me', undefined, {
        ...auth,
        authorization: `Bearer ${login.json().access_token}`,
      } as Record<string, string>);
      expect(me.json().nickname).toBe('ada!');
      const guest = () => call('POST', '/auth/guest', { device_id: 'device-1' }, auth as Record<string, string>);
      const first = await guest();
      expect(first.statusCode, first.body).toBe(200);
      await guest();
      expect(runs.get('signup:device-1')).toBe(1);
    });
  });
}
