/** Access rules on the client document routes (§9), on both engines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectWithPlayer, startTestApp, type TestApp } from '../support/app.js';
import { engines } from '../support/engines.js';
import { MemoryRulesSource } from '../support/rules.js';

const DENIED = { detail: 'Permission denied by rules' };

const RULES = {
  documents: [
    { match: 'users/{uid}/{rest=**}', allow: { read: 'request.auth.uid == uid', write: 'request.auth.uid == uid' } },
    {
      match: 'posts/{post}',
      allow: {
        get: 'true',
        list: 'resource.data.owner == request.auth.uid',
        create: 'request.resource.data.owner == request.auth.uid',
        update: 'resource.data.owner == request.auth.uid && request.resource.data.score <= 100',
        delete: 'resource.data.owner == request.auth.uid',
      },
    },
    {
      match: 'notes/{note}',
      allow: { list: 'resource.data.owner == request.auth.uid || resource.data.public == true', write: 'true' },
    },
    { match: 'secret/{id}', allow: { write: 'true' } },
    { match: 'cards/{card}', allow: { get: 'resource.data.visible == true', write: 'true' } },
  ],
};

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`document rules (§9) on ${engine.name}`, () => {
    let t: TestApp;
    let other: { userId: number; headers: Record<string, string> };
    const rules = new MemoryRulesSource();
    beforeAll(async () => {
      t = await startTestApp(engine, {}, { rules });
      const second = await t.app.services.accounts.createUser(t.project.projectId, {
        username: 'second',
        password: 'password-123',
      });
      const { access_token } = await t.app.services.accounts.issueToken(t.project.projectId, second.id);
      other = { userId: second.id, headers: { ...t.headers, authorization: `Bearer ${access_token}` } };
      rules.set(t.project.projectId, RULES);
    });
    afterAll(async () => {
      await t?.close();
    });

    const call = (
      method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      payload?: unknown,
      headers = t.headers,
    ) => t.app.http.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const me = () => String(t.userId);
    const paths = (response: { json(): { documents: { path: string }[] } }) =>
      response.json().documents.map((d) => d.path);

    it('lets a player write and read their own data only; denials write nothing', async () => {
      const mine = `/documents/docs/users/${me()}/saves/s1`;
      expect((await call('PUT', mine, { data: { coins: 5 } })).statusCode).toBe(200);
      expect((await call('GET', mine)).json()).toMatchObject({ data: { coins: 5 } });

      for (const [method, payload] of [
        ['GET'],
        ['PUT', { data: { coins: 0 } }],
        ['PATCH', { data: { coins: 0 } }],
        ['DELETE'],
      ] as const) {
        const denied = await call(method, mine, payload, other.headers);
        expect(denied.statusCode, method).toBe(403);
        expect(denied.json()).toEqual(DENIED);
      }
      expect((await call('GET', mine)).json()).toMatchObject({ data: { coins: 5 } });
    });

    it('checks paths first (400) and rules before existence (403 before 404)', async () => {
      expect((await call('GET', '/documents/docs/users', undefined, other.headers)).statusCode).toBe(400);
      expect(
        (await call('GET', `/documents/docs/users/${me()}/saves/missing`, undefined, other.headers)).statusCode,
      ).toBe(403);
      expect(
        (await call('DELETE', `/documents/docs/users/${me()}/saves/missing`, undefined, other.headers)).statusCode,
      ).toBe(403);
      expect(
        (await call('PATCH', `/documents/docs/users/${me()}/saves/missing`, { data: {} }, other.headers)).statusCode,
      ).toBe(403);
      expect((await call('GET', `/documents/docs/users/${me()}/saves/missing`)).statusCode).toBe(404);
      expect((await call('GET', '/documents/docs/nowhere/x')).statusCode).toBe(403);
      expect((await call('GET', '/documents/docs/secret/x')).statusCode).toBe(403);
    });

    it('decides a get rule that reads resource on the stored document; a missing one is denied too', async () => {
      const shownData = { visible: true, n: 1 };
      expect((await call('PUT', '/documents/docs/cards/shown', { data: shownData })).statusCode).toBe(200);
      expect((await call('PUT', '/documents/docs/cards/hidden', { data: { visible: false } })).statusCode).toBe(200);
      const shown = await call('GET', '/documents/docs/cards/shown', undefined, other.headers);
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).toMatchObject({ path: 'cards/shown', data: shownData, collections: [] });
      expect((await call('GET', '/documents/docs/cards/hidden', undefined, other.headers)).statusCode).toBe(403);
      expect((await call('GET', '/documents/docs/cards/missing', undefined, other.headers)).statusCode).toBe(403);
    });

    it('decides create on request.resource, update on resource and the merged data', async () => {
      expect((await call('PUT', '/documents/docs/posts/p1', { data: { owner: 'someone else' } })).statusCode).toBe(403);
      expect((await call('GET', '/documents/docs/posts/p1')).statusCode).toBe(404);
      expect((await call('PUT', '/documents/docs/posts/p1', { data: { owner: me(), score: 1 } })).statusCode).toBe(200);
      const posted = await call('POST', '/documents/collections/posts', { data: { owner: me(), score: 2 } });
      expect(posted.statusCode).toBe(201);
      expect((await call('DELETE', `/documents/docs/${posted.json().path}`)).statusCode).toBe(200);
      expect((await call('POST', '/documents/collections/posts', { data: { owner: 'x' } })).json()).toEqual(DENIED);

      expect((await call('PATCH', '/documents/docs/posts/p1', { data: { score: 150 } })).statusCode).toBe(403);
      expect((await call('PATCH', '/documents/docs/posts/p1', { data: { score: 99 } })).json()).toMatchObject({
        data: { owner: me(), score: 99 },
      });
      // Another player may read the post but neither update nor delete it.
      expect((await call('GET', '/documents/docs/posts/p1', undefined, other.headers)).statusCode).toBe(200);
      expect(
        (await call('PUT', '/documents/docs/posts/p1', { data: { owner: String(other.userId) } }, other.headers))
          .statusCode,
      ).toBe(403);
      expect((await call('DELETE', '/documents/docs/posts/p1', undefined, other.headers)).statusCode).toBe(403);
      expect((await call('GET', '/documents/docs/posts/p1')).json()).toMatchObject({
        data: { owner: me(), score: 99 },
      });
    });

    it('lists and queries only what the list rule allows, limits counting allowed documents (where clauses)', async () => {
      const theirs = String(other.userId);
      for (let i = 0; i < 6; i++) {
        const owner = i % 2 === 0 ? theirs : me();
        const headers = i % 2 === 0 ? other.headers : t.headers;
        expect(
          (await call('PUT', `/documents/docs/posts/q${i}`, { data: { owner, score: i } }, headers)).statusCode,
        ).toBe(200);
      }
      const mine = ['posts/p1', 'posts/q1', 'posts/q3', 'posts/q5'];
      expect(paths(await call('GET', '/documents/collections/posts?limit=100'))).toEqual(expect.arrayContaining(mine));
      const listed = paths(await call('GET', '/documents/collections/posts?limit=2'));
      expect(listed).toEqual(['posts/p1', 'posts/q1']);
      expect(paths(await call('GET', '/documents/collections/posts?limit=2&start_after=q1'))).toEqual([
        'posts/q3',
        'posts/q5',
      ]);
      expect(paths(await call('GET', '/documents/query/posts?parent_path=&order_by=-score&limit=2&offset=1'))).toEqual([
        'posts/q5',
        'posts/q3',
      ]);
      expect(
        paths(await call('GET', '/documents/query/posts?parent_path=&limit=10', undefined, other.headers)),
      ).toEqual(['posts/q0', 'posts/q2', 'posts/q4']);
    });

    it('hands a data-dependent list rule to the database: the store returns only allowed rows', async () => {
      const store = t.app.services.storage.documents;
      const rows: number[] = [];
      const query = store.query.bind(store);
      store.query = async (projectId, options) => {
        const found = await query(projectId, options);
        rows.push(found.documents.length);
        return found;
      };
      try {
        for (let i = 0; i < 30; i++) {
          const headers = i % 10 === 0 ? t.headers : other.headers;
          const owner = i % 10 === 0 ? me() : String(other.userId);
          await call(
            'PUT',
            `/documents/docs/posts/r${String(i).padStart(2, '0')}`,
            { data: { owner, score: 0 } },
            headers,
          );
        }
        rows.length = 0;
        const listed = paths(await call('GET', '/documents/collections/posts?start_after=q5&limit=2'));
        expect(listed).toEqual(['posts/r00', 'posts/r10']);
        expect(rows).toEqual([2]);
      } finally {
        store.query = query;
      }
    });

    it('checks other list rules document by document, with the same counting', async () => {
      const theirs = String(other.userId);
      const notes = [
        { owner: theirs, public: false },
        { owner: me(), public: false },
        { owner: theirs, public: true },
        { owner: theirs, public: false },
        { owner: me(), public: true },
      ];
      for (const [i, data] of notes.entries()) await call('PUT', `/documents/docs/notes/n${i}`, { data });
      expect(paths(await call('GET', '/documents/collections/notes?limit=2'))).toEqual(['notes/n1', 'notes/n2']);
      expect(paths(await call('GET', '/documents/collections/notes?start_after=n1'))).toEqual(['notes/n2', 'notes/n4']);
      expect(paths(await call('GET', '/documents/query/notes?where=public__exact:true&offset=1'))).toEqual([
        'notes/n4',
      ]);
      expect(paths(await call('GET', '/documents/query/notes?limit=1', undefined, other.headers))).toEqual([
        'notes/n0',
      ]);
    });

    it('checks a query at any depth by parent: each parent planned once, documents checked only when the plan needs them', async () => {
      const theirs = `/documents/docs/users/${other.userId}/saves/s2`;
      expect((await call('PUT', theirs, { data: { coins: 1 } }, other.headers)).statusCode).toBe(200);
      expect(paths(await call('GET', '/documents/query/saves'))).toEqual([`users/${me()}/saves/s1`]);
      expect(paths(await call('GET', '/documents/query/saves', undefined, other.headers))).toEqual([
        `users/${other.userId}/saves/s2`,
      ]);
    });

    it('answers an empty list, never 403, when no document may be listed; bad clauses are still 400', async () => {
      await call('PUT', '/documents/docs/secret/s1', { data: {} });
      const listed = await call('GET', '/documents/collections/secret');
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({ documents: [] });
      expect((await call('GET', '/documents/query/secret?parent_path=&where=a__nope:1')).statusCode).toBe(400);
    });

    it('follows a ruleset change at once, and other projects keep the open ruleset', async () => {
      const path = `/documents/docs/users/${me()}/saves/s1`;
      rules.set(t.project.projectId, { documents: [{ match: 'users/{uid}/{rest=**}', allow: { read: 'true' } }] });
      expect((await call('GET', path, undefined, other.headers)).statusCode).toBe(200);
      rules.set(t.project.projectId, RULES);
      expect((await call('GET', path, undefined, other.headers)).statusCode).toBe(403);

      const stranger = await createProjectWithPlayer(t.app, 'org-open', 'open');
      expect((await call('PUT', '/documents/docs/anything/x', { data: {} }, stranger.headers)).statusCode).toBe(200);
    });
  });
}
