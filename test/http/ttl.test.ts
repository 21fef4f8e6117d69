/** Expiring documents (§17) over HTTP on both engines: the admin routes, every read, writes, and the sweep. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import type { JsonObject } from '../../src/core/json.js';
import { defineFunctions } from '../../src/functions/index.js';
import { adminFixture } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/clock.js';
import { engines } from '../support/engines.js';

/** The `document.written` events an after handler was given (§16: a sweep's deletes are announced). */
const written: { path: string; deleted: boolean; previous: unknown }[] = [];
const functions = FunctionRegistry.of([
  {
    file: 'events.ts',
    definition: defineFunctions({
      projects: '*',
      after: { 'document.written': (_ctx, event) => void written.push(event.data as (typeof written)[number]) },
    }),
  },
]);

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`expiring documents (§17) on ${engine.name}`, () => {
    let t: TestApp;
    let f: Awaited<ReturnType<typeof adminFixture>>;
    const clock = new ManualClock(Date.now());
    /** A time a minute ahead of the clock at the start of each test. */
    let T: number;
    let collection: string;
    let tests = 0;
    beforeAll(async () => {
      written.length = 0;
      t = await startTestApp(engine, {}, { clock, functions });
      f = await adminFixture(t);
    });
    afterAll(async () => {
      await t?.close();
    });
    beforeEach(async () => {
      tests += 1;
      collection = `sessions${tests}`;
      T = clock.now() + 60_000;
      await t.app.services.ttl.set(f.projectId, collection, 'expires');
      await t.app.services.indexes.whenBuilt();
    });

    const project = () => f.projectId;
    const documents = () => t.app.services.documents;
    const put = (path: string, data: JsonObject) => documents().put(project(), path, data);
    const client = (method: 'GET' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: object, headers = {}) =>
      t.app.http.inject({ method, url, headers: { ...t.headers, ...headers }, ...(body ? { payload: body } : {}) });
    const admin = (method: 'GET' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, body?: object) =>
      t.app.http.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
    const ttlUrl = (name: string, projectId = project()) => `/admin/projects/${projectId}/ttl/${name}`;
    const paths = (json: { documents: { path: string }[] }) => json.documents.map((d) => d.path);

    it('admin routes: set, get, clear; roles, 404, 422, another organisation', async () => {
      const set = await admin('PUT', ttlUrl('rooms'), f.editor.headers, { field: 'meta__expires_at' });
      expect(set.statusCode).toBe(200);
      expect(set.json()).toEqual({ collection: 'rooms', field: 'meta__expires_at' });
      expect((await admin('GET', ttlUrl('rooms'), f.viewer.headers)).json()).toEqual(set.json());
      expect((await admin('PUT', ttlUrl('rooms'), f.viewer.headers, { field: 'x' })).statusCode).toBe(403);
      expect((await admin('DELETE', ttlUrl('rooms'), f.viewer.headers)).statusCode).toBe(403);
      for (const body of [{}, { field: 5 }, { field: null }, { field: '' }, { field: 'a____b' }]) {
        const bad = await admin('PUT', ttlUrl('rooms'), f.owner.headers, body);
        expect(bad.statusCode).toBe(422);
        expect(Array.isArray(bad.json().detail)).toBe(true);
      }
      expect((await admin('GET', ttlUrl('rooms'), f.owner.headers)).json().field).toBe('meta__expires_at');
      const other = await admin('GET', ttlUrl('rooms', f.other.projectId), f.owner.headers);
      expect(other.statusCode).toBe(404);
      expect(other.json()).toEqual({ detail: 'Project not found' });
      // The sweep's index was declared with the setting, and goes with it.
      const indexes = async () =>
        (await t.app.services.indexes.list(project())).indexes.filter((i) => i.collection === 'rooms');
      expect((await indexes()).map((i) => i.fields)).toEqual([[{ field: 'meta__expires_at', order: 'asc' }]]);
      const cleared = await admin('DELETE', ttlUrl('rooms'), f.editor.headers);
      expect(cleared.json()).toEqual({ deleted: 'rooms' });
      expect(await indexes()).toEqual([]);
      const gone = await admin('GET', ttlUrl('rooms'), f.owner.headers);
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toEqual({ detail: 'TTL not set' });
      expect((await admin('DELETE', ttlUrl('rooms'), f.owner.headers)).json()).toEqual({ detail: 'TTL not set' });
    });

    it('a document expiring at T is absent to every read at T + 1 ms', async () => {
      await put(`${collection}/a`, { expires: T, n: 1 });
      await put(`${collection}/b`, { expires: T + 3_600_000, n: 2 });
      await put(`games/g1/${collection}/c`, { expires: new Date(T).toISOString(), n: 3 });
      const readAll = async () => ({
        get: (await client('GET', `/documents/docs/${collection}/a`)).statusCode,
        list: paths((await client('GET', `/documents/collections/${collection}`)).json()),
        query: paths((await client('GET', `/documents/query/${collection}?order_by=n`)).json()),
        where: paths((await client('GET', `/documents/query/${collection}?where=n__gte:1`)).json()),
        nested: paths((await client('GET', `/documents/collections/${collection}?parent_path=games/g1`)).json()),
        adminPage: (
          await admin('GET', `/document-store/${f.orgId}/${project()}/collections/${collection}`, f.viewer.headers)
        ).json(),
        adminGet: (await admin('GET', `/document-store/${f.orgId}/${project()}/docs/${collection}/a`, f.viewer.headers))
          .statusCode,
      });
      clock.set(T);
      const before = await readAll();
      expect(before.get).toBe(404);
      expect(before.list).toEqual([`${collection}/b`]);
      clock.set(T - 1);
      const alive = await readAll();
      expect(alive).toMatchObject({ get: 200, list: [`${collection}/a`, `${collection}/b`], adminGet: 200 });
      expect(alive.query).toEqual([`${collection}/a`, `${collection}/b`, `games/g1/${collection}/c`]);
      expect(alive.adminPage.total).toBe(2);
      clock.set(T + 1);
      const after = await readAll();
      expect(after).toMatchObject({ get: 404, list: [`${collection}/b`], query: [`${collection}/b`], nested: [] });
      expect(after.where).toEqual([`${collection}/b`]);
      expect(after.adminGet).toBe(404);
      expect(after.adminPage).toMatchObject({ total: 1, documents: [{ path: `${collection}/b` }] });
      // A list with a limit still fills its page from the live documents.
      const limited = await client('GET', `/documents/collections/${collection}?limit=1`);
      expect(paths(limited.json())).toEqual([`${collection}/b`]);
    });

    it('values that never expire, ISO and epoch forms, offsets and future times', async () => {
      const now = clock.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const cases: [string, JsonObject, boolean][] = [
        ['epoch-past', { expires: now - 1 }, true],
        ['epoch-now', { expires: now }, true],
        ['epoch-future', { expires: now + 1 }, false],
        ['epoch-fraction', { expires: now - 0.5 }, true],
        ['iso-past', { expires: iso(now - 1000) }, true],
        ['iso-future', { expires: iso(now + 1000) }, false],
        ['iso-no-millis', { expires: iso(now - 2000).replace(/\.\d{3}Z$/, 'Z') }, true],
        // 12:00 at +02:00 is 10:00 UTC.
        ['iso-offset', { expires: iso(now + 3_600_000).replace(/Z$/, '+02:00') }, true],
        ['iso-offset-future', { expires: iso(now - 3_600_000).replace(/Z$/, '-02:00') }, false],
        ['no-zone', { expires: iso(now - 1000).replace(/Z$/, '') }, false],
        ['date-only', { expires: iso(now - 86_400_000).slice(0, 10) }, false],
        ['bad-day', { expires: '2001-02-30T00:00:00Z' }, false],
        ['words', { expires: 'yesterday' }, false],
        ['bool', { expires: true }, false],
        ['object', { expires: { at: now - 1 } }, false],
        ['array', { expires: [now - 1] }, false],
        ['null', { expires: null }, false],
        ['missing', { other: now - 1 }, false],
      ];
      for (const [name, data] of cases) await put(`${collection}/${name}`, data);
      const listed = new Set(paths((await client('GET', `/documents/collections/${collection}?limit=100`)).json()));
      const queried = new Set(paths((await client('GET', `/documents/query/${collection}`)).json()));
      for (const [name, , expired] of cases) {
        const path = `${collection}/${name}`;
        expect({ name, get: (await client('GET', `/documents/docs/${path}`)).statusCode }).toEqual({
          name,
          get: expired ? 404 : 200,
        });
        expect({ name, listed: listed.has(path), queried: queried.has(path) }).toEqual({
          name,
          listed: !expired,
          queried: !expired,
        });
      }
    });

    it('writes treat an expired document as absent: PUT creates, PATCH and DELETE 404, If-Match 412', async () => {
      const path = `${collection}/w`;
      const first = await put(path, { expires: T, n: 1 });
      clock.set(T + 1);
      expect((await client('PATCH', `/documents/docs/${path}`, { data: { n: 2 } })).statusCode).toBe(404);
      expect((await client('DELETE', `/documents/docs/${path}`)).statusCode).toBe(404);
      const ifMatch = await client(
        'PUT',
        `/documents/docs/${path}`,
        { data: { n: 3 } },
        { 'if-match': `"${first.version}"` },
      );
      expect(ifMatch.statusCode).toBe(412);
      const created = await client('PUT', `/documents/docs/${path}`, { data: { n: 4 } }, { 'if-none-match': '*' });
      expect(created.statusCode).toBe(200);
      const body = created.json();
      expect(body).toMatchObject({ path, data: { n: 4 }, created: true });
      expect(body.id).not.toBe(first.id);
      expect(Number(JSON.parse(created.headers.etag as string))).toBeGreaterThan(first.version);
      const read = await client('GET', `/documents/docs/${path}`);
      expect(read.json()).toMatchObject({ id: body.id, data: { n: 4 } });
      // A document that has not expired is written over as usual.
      await put(`${collection}/live`, { expires: T + 10_000, n: 1 });
      expect((await client('PATCH', `/documents/docs/${collection}/live`, { data: { n: 2 } })).json()).toMatchObject({
        data: { n: 2 },
      });
    });

    it('the sweep deletes expired documents as ordinary deletes, and leaves the rest', async () => {
      const sweeper = t.app.services.ttlSweeper;
      await sweeper.sweep(); // what the tests before left expired
      await put(`${collection}/old`, { expires: T });
      await put(`${collection}/old-iso`, { expires: new Date(T).toISOString().replace(/Z$/, '+05:00') });
      await put(`${collection}/later`, { expires: T + 3_600_000 });
      await put(`${collection}/junk`, { expires: '0000' });
      expect(await sweeper.sweep()).toBe(1); // the +05:00 time was five hours before T
      clock.set(T + 1);
      const version = await t.app.services.storage.documents.currentVersion(project());
      await sweeper.sweep();
      const history = await t.app.services.storage.documents.changesSince(project(), version);
      // One commit, a version of its own, deleting the document (other tests' collections expire too).
      const mine = history?.commits.filter((commit) => commit.changes.some((c) => c.path.startsWith(`${collection}/`)));
      expect(mine).toEqual([
        {
          version: expect.any(Number),
          changes: [{ path: `${collection}/old`, id: expect.any(String), data: null, previous: { expires: T } }],
        },
      ]);
      const stored = await t.app.services.storage.documents.query(project(), { collection, where: [] });
      expect(stored.documents.map((d) => parseDocumentJson(d).path).sort()).toEqual([
        `${collection}/junk`,
        `${collection}/later`,
      ]);
      expect(await sweeper.sweep()).toBe(0);
      // Announced as any delete: a document.written event with deleted: true and the data it had.
      await t.app.services.consumers.settled();
      expect(written.filter((event) => event.path === `${collection}/old`).at(-1)).toMatchObject({
        deleted: true,
        previous: { expires: T },
      });
    });
  });
}
