/** §12 document listeners: `doc().onSnapshot` and `query().onSnapshot` over the shared socket, reconnects and a server restart. */

import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  CdsError,
  type Client,
  type Document,
  type DocumentSnapshot,
  type Query,
} from '../../packages/client/src/index.js';
import { serviceForSuite, until } from './service.js';

const suite = serviceForSuite();

const signedIn = (device: string, withWs = false) => suite.guest(device, withWs ? { WebSocket } : {});

const byPath = (documents: Document[]) => new Map(documents.map((d) => [d.path, JSON.stringify(d.data)]));

/**
 * Records every callback and checks each against the previous one: versions strictly increase
 * (each delivered once), and the changes turn the previous result into the new one (only real changes).
 */
function recorder() {
  const calls: DocumentSnapshot[] = [];
  const problems: string[] = [];
  const listener = (snapshot: DocumentSnapshot) => {
    const previous = calls.at(-1);
    const expected = new Map(previous ? byPath(previous.documents) : []);
    if (previous && snapshot.version <= previous.version) problems.push(`version ${snapshot.version} repeated`);
    if (previous && snapshot.changes.length === 0) problems.push(`version ${snapshot.version} without a change`);
    for (const { type, document } of snapshot.changes) {
      const had = expected.has(document.path);
      const data = JSON.stringify(document.data);
      if (type === 'removed' ? !had : type === 'added' ? had : !had || expected.get(document.path) === data) {
        problems.push(`version ${snapshot.version}: ${type} ${document.path} is not a change`);
      }
      if (type === 'removed') expected.delete(document.path);
      else expected.set(document.path, data);
    }
    if (JSON.stringify([...expected].sort()) !== JSON.stringify([...byPath(snapshot.documents)].sort())) {
      problems.push(`version ${snapshot.version}: the changes do not lead to the result`);
    }
    calls.push(snapshot);
  };
  return { calls, problems, listener, last: () => calls.at(-1) };
}

const paths = (documents: Document[] | undefined) => (documents ?? []).map((d) => d.path);

describe('doc().onSnapshot and query().onSnapshot', () => {
  it('report added, modified and removed in query order; unsubscribe stops the calls', async () => {
    const client = await signedIn('ls-basic');
    const doc = recorder();
    const query = recorder();
    const stopDoc = client.doc('basic/b').onSnapshot(doc.listener);
    client.query('basic').orderBy('rank').onSnapshot(query.listener);
    await until(() => doc.calls.length === 1 && query.calls.length === 1);
    expect(doc.last()).toMatchObject({ documents: [], changes: [] });

    await client.doc('basic/b').set({ rank: 2 });
    await client.doc('basic/a').set({ rank: 3 });
    await client.doc('basic/c').set({ rank: 1 });
    await until(() => query.calls.length === 4 && doc.calls.length === 2);
    expect(paths(query.last()?.documents)).toEqual(['basic/c', 'basic/b', 'basic/a']);
    expect(doc.last()?.changes).toMatchObject([{ type: 'added', document: { path: 'basic/b', data: { rank: 2 } } }]);

    const written = await client.doc('basic/b').update({ rank: 9 });
    await until(() => query.calls.length === 5 && doc.calls.length === 3);
    expect(paths(query.last()?.documents)).toEqual(['basic/c', 'basic/a', 'basic/b']);
    expect(query.last()?.changes.map((c) => c.type)).toEqual(['modified']);
    expect(doc.last()?.version).toBe(written.version);

    stopDoc();
    await client.doc('basic/b').delete();
    await until(() => query.calls.length === 6);
    expect(query.last()?.changes).toMatchObject([
      { type: 'removed', document: { path: 'basic/b', data: { rank: 9 } } },
    ]);
    expect(doc.calls).toHaveLength(3);
    expect([...doc.problems, ...query.problems]).toEqual([]);
    expect(client.socket.connections).toBe(1);
  });

  it('keeps a limit window through writes and reconnects, equal to the REST query', async () => {
    const writer = await signedIn('ls-window-writer');
    const reader = await signedIn('ls-window-reader', true);
    const top = () => reader.query('window').orderBy('score', 'desc').limit(3);
    const window = recorder();
    top().onSnapshot(window.listener);
    await until(() => window.calls.length === 1);
    for (let k = 1; k <= 40; k++) {
      await writer.doc(`window/w${k % 7}`).set({ score: (k * 13) % 17 });
      if (k % 10 === 0) reader.socket.reconnect();
      if (k % 5 === 0) {
        const expected = await top().get();
        await until(() => JSON.stringify(window.last()?.documents) === JSON.stringify(expected));
      }
    }
    expect(window.calls.every((c) => c.documents.length <= 3)).toBe(true);
    expect(window.problems).toEqual([]);
    expect(reader.socket.connections).toBeGreaterThanOrEqual(4);
  });

  it('survives a server restart in the middle of 1,000 writes: every result equals the REST query, each version once', async () => {
    const writer = await signedIn('ls-restart-writer');
    const readers = [await signedIn('ls-restart-a'), await signedIn('ls-restart-b', true)];
    const queries: ((c: Client) => Query)[] = [
      (c) => c.query('items'),
      (c) => c.query('items').where('score', 'gte', 25).orderBy('score', 'desc'),
      (c) => c.query('items').orderBy('score', 'desc').limit(5),
    ];
    const counters = readers.map(() => recorder());
    const results = readers.map(() => queries.map(() => recorder()));
    for (const [r, reader] of readers.entries()) {
      reader.doc('counters/main').onSnapshot((counters[r] ?? recorder()).listener);
      for (const [q, query] of queries.entries()) query(reader).onSnapshot((results[r]?.[q] ?? recorder()).listener);
    }
    const all = [...counters, ...results.flat()];
    await until(() => all.every((rec) => rec.calls.length === 1));

    const N = 1000;
    let written = 0;
    const writes = (async () => {
      for (let k = 1; k <= N; k++) {
        for (;;) {
          try {
            const batch = writer.batch();
            batch.set('counters/main', { counter: k });
            batch.set(`items/i${k % 20}`, { k, score: (k * 7) % 50 });
            await batch.commit();
            break;
          } catch (error) {
            if (!(error instanceof CdsError) || error.code !== 'network') throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        written = k;
      }
    })();
    await until(() => written >= N / 2, 120_000);
    await suite.service.kill();
    await suite.service.restart();
    await writes;

    const expected = await Promise.all(queries.map((query) => query(writer).get()));
    const done = () =>
      counters.every((rec) => rec.last()?.documents[0]?.data.counter === N) &&
      results.every((recs) =>
        recs.every((rec, q) => JSON.stringify(rec.last()?.documents) === JSON.stringify(expected[q])),
      );
    await until(done, 60_000);
    for (const rec of all) expect(rec.problems).toEqual([]);
    for (const rec of counters) {
      // Every write changed the counter: each of its versions delivered once, none missed.
      const values = rec.calls.slice(1).map((c) => Number(c.documents[0]?.data.counter));
      expect(new Set(values).size).toBe(N);
    }
    // The limit listener kept its window of five.
    for (const recs of results) expect(recs[2]?.calls.every((c) => c.documents.length <= 5)).toBe(true);
    for (const reader of readers) expect(reader.socket.connections).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('surfaces refusals, rules denials and cancels as CdsError', async () => {
    const client = await signedIn('ls-errors');
    const errors: CdsError[] = [];
    const calls = recorder();
    client
      .query('items')
      .limit(5000)
      .onSnapshot(calls.listener, (error) => errors.push(error));
    await until(() => errors.length === 1);
    expect(errors[0]).toBeInstanceOf(CdsError);
    expect(errors[0]).toMatchObject({ code: 'invalid-argument', detail: 'Invalid limit' });
    expect(() => client.query('items').offset(1).onSnapshot(calls.listener)).toThrow(CdsError);

    const admin = await suite.service.adminToken();
    const putRules = async (documents: unknown[]) => {
      const put = await fetch(`${suite.service.url}/admin/projects/${suite.service.projectId}/rules`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ rules: { documents, realtime: [] } }),
      });
      expect(put.status).toBe(200);
    };
    const open = { match: 'open/{id}', allow: { read: 'true', write: 'true' } };
    await putRules([open, { match: 'flip/{id}', allow: { read: 'true', write: 'true' } }]);
    client.doc('locked/l1').onSnapshot(calls.listener, (error) => errors.push(error));
    await until(() => errors.length === 2);
    expect(errors[1]).toMatchObject({ status: 403, code: 'permission-denied', detail: 'Permission denied by rules' });

    const flip = recorder();
    client.doc('flip/f1').onSnapshot(flip.listener, (error) => errors.push(error));
    await until(() => flip.calls.length === 1);
    await putRules([open]);
    await until(() => errors.length === 3);
    expect(errors[2]).toBeInstanceOf(CdsError);
    expect(errors[2]).toMatchObject({ code: 'permission-denied' });
    expect(calls.calls).toEqual([]);
  });

  it('follows a rules change that hides documents from a query listener, at the same version', async () => {
    const client = await signedIn('ls-rules-query');
    const admin = await suite.service.adminToken();
    const putRules = async (read: string) => {
      const rules = { documents: [{ match: 'shown/{id}', allow: { read, write: 'true' } }], realtime: [] };
      const put = await fetch(`${suite.service.url}/admin/projects/${suite.service.projectId}/rules`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ rules }),
      });
      expect(put.status).toBe(200);
    };
    await putRules('true');
    await client.doc('shown/a').set({ v: 1 });
    await client.doc('shown/b').set({ v: 2 });
    const shown = recorder();
    client.query('shown').onSnapshot(shown.listener);
    await until(() => shown.calls.length === 1);
    expect(paths(shown.last()?.documents)).toEqual(['shown/a', 'shown/b']);
    await putRules('resource.data.v == 1');
    await until(() => shown.calls.length === 2);
    expect(shown.last()?.changes).toMatchObject([{ type: 'removed', document: { path: 'shown/b' } }]);
    expect(shown.last()?.documents).toEqual(await client.query('shown').get());
    await client.doc('shown/a').set({ v: 1, seen: true });
    await until(() => shown.calls.length === 3);
    expect(shown.last()?.documents).toEqual(await client.query('shown').get());
    // The re-read may carry the version of the last commit (no commit made the change): allowed to repeat.
    expect(shown.problems.filter((p) => !p.endsWith('repeated'))).toEqual([]);
  });
});
