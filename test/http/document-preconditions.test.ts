/** Document versions, ETags and preconditions over HTTP (§10, §11), on both engines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { addPlayer, MemoryRulesSource } from '../support/rules.js';

const FAILED = { detail: 'Precondition failed' };

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document versions and preconditions (§11) on ${engine.name}`, () => {
    let t: TestApp;
    const rules = new MemoryRulesSource();
    beforeAll(async () => {
      t = await startTestApp(engine, {}, { rules });
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (method: string, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
      t.app.http.inject({
        method: method as 'PUT',
        url,
        headers: { ...t.headers, ...extra },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    const versionOf = (etag: unknown) => Number(String(etag).replaceAll('"', ''));

    it('GET, PUT, POST and PATCH carry ETag "<version>"; every write commits a larger version, bodies unchanged', async () => {
      const put = await call('PUT', '/documents/docs/v/a', { data: { n: 1 } });
      expect(put.headers.etag).toMatch(/^"\d+"$/);
      expect(Object.keys(put.json()).sort()).toEqual(['created', 'data', 'id', 'path']);
      const get = await call('GET', '/documents/docs/v/a');
      expect(get.headers.etag).toBe(put.headers.etag);
      const same = await call('PUT', '/documents/docs/v/a', { data: { n: 1 } });
      expect(versionOf(same.headers.etag)).toBeGreaterThan(versionOf(put.headers.etag));
      const patch = await call('PATCH', '/documents/docs/v/a', { data: { m: 2 } });
      expect(versionOf(patch.headers.etag)).toBeGreaterThan(versionOf(same.headers.etag));
      const post = await call('POST', '/documents/collections/v', { data: {} });
      expect(post.statusCode).toBe(201);
      expect(versionOf(post.headers.etag)).toBeGreaterThan(versionOf(patch.headers.etag));
      // Another document's write moves the project's sequence, not this document's version.
      expect((await call('GET', '/documents/docs/v/a')).headers.etag).toBe(patch.headers.etag);
    });

    it('If-Match: a matching ETag (or one of a list, or *) writes; otherwise, or when missing, 412', async () => {
      const etag = (await call('PUT', '/documents/docs/m/a', { data: { n: 1 } })).headers.etag as string;
      expect((await call('PUT', '/documents/docs/m/a', { data: { n: 2 } }, { 'if-match': '"999999"' })).json()).toEqual(
        FAILED,
      );
      const stale = await call('PATCH', '/documents/docs/m/a', { data: { n: 2 } }, { 'if-match': '"1", W/"5"' });
      expect(stale.statusCode).toBe(412);
      expect((await call('GET', '/documents/docs/m/a')).json().data).toEqual({ n: 1 });
      const ok = await call('PATCH', '/documents/docs/m/a', { data: { n: 2 } }, { 'if-match': `"0", ${etag}` });
      expect(ok.statusCode).toBe(200);
      expect((await call('PUT', '/documents/docs/m/a', { data: { n: 3 } }, { 'if-match': etag })).statusCode).toBe(412);
      expect((await call('PUT', '/documents/docs/m/a', { data: { n: 3 } }, { 'if-match': '*' })).statusCode).toBe(200);
      expect((await call('PUT', '/documents/docs/m/none', { data: {} }, { 'if-match': '*' })).statusCode).toBe(412);
      expect((await call('GET', '/documents/docs/m/none')).statusCode).toBe(404);
      const current = (await call('GET', '/documents/docs/m/a')).headers.etag as string;
      expect((await call('DELETE', '/documents/docs/m/a', undefined, { 'if-match': '"1"' })).statusCode).toBe(412);
      expect((await call('DELETE', '/documents/docs/m/a', undefined, { 'if-match': current })).json()).toEqual({
        deleted: 'm/a',
      });
    });

    it('If-None-Match: * creates only: 412 when the document exists', async () => {
      const first = await call('PUT', '/documents/docs/n/a', { data: { v: 1 } }, { 'if-none-match': '*' });
      expect(first.json()).toMatchObject({ created: true });
      const second = await call('PUT', '/documents/docs/n/a', { data: { v: 2 } }, { 'if-none-match': '*' });
      expect(second.statusCode).toBe(412);
      expect(second.json()).toEqual(FAILED);
      expect((await call('GET', '/documents/docs/n/a')).json().data).toEqual({ v: 1 });
    });

    it('of two writers holding the same ETag, exactly one wins', async () => {
      const etag = (await call('PUT', '/documents/docs/race/a', { data: { owner: null } })).headers.etag as string;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call('PUT', '/documents/docs/race/a', { data: { owner: i } }, { 'if-match': etag }),
        ),
      );
      expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.statusCode === 412)).toHaveLength(9);
    });

    it('checks in the order path (400), body (422), rules (403), precondition (412), existence (404)', async () => {
      const other = await addPlayer(t, `order_${engine.name}`);
      const { projectId } = t.project;
      rules.set(projectId, {
        documents: [
          { match: 'mine/{id}', allow: { read: 'true', write: `request.auth.uid == "${t.userId}"` } },
          { match: 'open/{id}', allow: { read: 'true', write: 'true' } },
        ],
      });
      try {
        const bad = { 'if-match': '"1"' };
        expect((await call('PATCH', '/documents/docs/mine', { data: {} }, bad)).statusCode).toBe(400);
        expect((await call('PATCH', '/documents/docs/mine/x', { data: 1 }, bad)).statusCode).toBe(422);
        const denied = await t.app.http.inject({
          method: 'PATCH',
          url: '/documents/docs/mine/x',
          headers: { ...other.headers, ...bad },
          payload: { data: {} },
        });
        expect(denied.statusCode).toBe(403);
        expect((await call('PATCH', '/documents/docs/mine/x', { data: {} }, bad)).statusCode).toBe(412);
        expect((await call('PATCH', '/documents/docs/mine/x', { data: {} })).statusCode).toBe(404);
        expect((await call('DELETE', '/documents/docs/open/x', undefined, bad)).statusCode).toBe(412);
        expect((await call('DELETE', '/documents/docs/open/x')).statusCode).toBe(404);
      } finally {
        rules.set(projectId, { documents: [{ match: '{path=**}', allow: { read: 'true', write: 'true' } }] });
      }
    });

    it('decides a rule on the stored document inside the write: request.resource is the data after transforms', async () => {
      const { projectId } = t.project;
      rules.set(projectId, {
        documents: [
          {
            match: 'capped/{id}',
            allow: { read: 'true', create: 'true', update: 'request.resource.data.n <= 3 && resource.data.n < 3' },
          },
        ],
      });
      try {
        await call('PUT', '/documents/docs/capped/c', { data: { n: 0 } });
        const answers = await Promise.all(
          Array.from({ length: 6 }, () =>
            call('PATCH', '/documents/docs/capped/c', { transforms: { n: { increment: 1 } } }),
          ),
        );
        expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(3);
        expect(answers.filter((a) => a.statusCode === 403)).toHaveLength(3);
        expect((await call('GET', '/documents/docs/capped/c')).json().data).toEqual({ n: 3 });
      } finally {
        rules.set(projectId, { documents: [{ match: '{path=**}', allow: { read: 'true', write: 'true' } }] });
      }
    });
  });
}
