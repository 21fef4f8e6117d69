/**
 * A listener's copy of its result (§10) without sockets: changes in the order removed, added,
 * modified; limit windows that push out, ignore what lies beyond, and ask for a re-read only when
 * a member of an incomplete window leaves or moves toward its end. Checked against a plain
 * re-evaluation of the query over random commits.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentChangeEntry, DocumentRecord } from '../../src/core/documents/document-store.js';
import type { JsonObject } from '../../src/core/json.js';
import { compileMatcher, documentOrder } from '../../src/core/listeners/document-matcher.js';
import type { ListenTarget } from '../../src/core/listeners/listen-request.js';
import { ListenerView } from '../../src/core/listeners/listener-view.js';
import { parseOrderBy, parseWhere } from '../../src/core/where.js';
import { randomInt, seededRandom } from '../support/prng.js';

const doc = (path: string, data: JsonObject): DocumentRecord => ({ id: `id-${path}`, path, data });
const write = (path: string, data: JsonObject | null): DocumentChangeEntry => ({
  path,
  id: `id-${path}`,
  data,
  previous: null,
});
const all = () => true;

function queryOf(target: Extract<ListenTarget, { kind: 'query' }>, stored: Map<string, JsonObject>): DocumentRecord[] {
  const matches = compileMatcher(target.where);
  const found = [...stored]
    .filter(([path, data]) => path.startsWith(`${target.collection}/`) && matches(data))
    .map(([path, data]) => doc(path, data));
  found.sort(documentOrder(target.orderBy));
  return target.limit === undefined ? found : found.slice(0, target.limit);
}

describe('ListenerView', () => {
  it('lists removed, then added, then modified, and nothing for an unchanged write', () => {
    const target: ListenTarget = { kind: 'query', collection: 'c', where: parseWhere(['n__gte:1']) };
    const view = new ListenerView(target);
    view.replace([doc('c/a', { n: 1 }), doc('c/b', { n: 2 })]);
    const update = view.apply(
      [write('c/a', { n: 5 }), write('c/new', { n: 3 }), write('c/b', { n: 0 }), write('x/y', { n: 9 })],
      all,
    );
    expect(update).toEqual({
      kind: 'changes',
      changes: [
        { type: 'removed', document: { id: 'id-c/b', path: 'c/b' } },
        { type: 'added', document: doc('c/new', { n: 3 }) },
        { type: 'modified', document: doc('c/a', { n: 5 }) },
      ],
    });
    expect(view.apply([write('c/a', { n: 5 })], all)).toEqual({ kind: 'changes', changes: [] });
  });

  it('a full window pushes its last member out, ignores what sorts after it, and re-reads when a member leaves', () => {
    const target: ListenTarget = { kind: 'query', collection: 'c', where: [], orderBy: parseOrderBy('n'), limit: 2 };
    const view = new ListenerView(target);
    view.replace([doc('c/a', { n: 1 }), doc('c/b', { n: 2 })]);
    expect(view.apply([write('c/z', { n: 9 })], all)).toEqual({ kind: 'changes', changes: [] });
    expect(view.apply([write('c/c', { n: 0 })], all)).toEqual({
      kind: 'changes',
      changes: [
        { type: 'removed', document: { id: 'id-c/b', path: 'c/b' } },
        { type: 'added', document: doc('c/c', { n: 0 }) },
      ],
    });
    expect(view.apply([write('c/a', null)], all)).toEqual({ kind: 'reload' });
    // The reload left the copy as the client holds it.
    expect(view.result().map((d) => d.path)).toEqual(['c/c', 'c/a']);
  });

  it('matches a plain re-evaluation of the query over random commits (re-reading when asked)', () => {
    const next = seededRandom(7);
    const random = { int: (n: number) => randomInt(next, n), chance: (p: number) => next() < p };
    for (let round = 0; round < 40; round++) {
      const target: Extract<ListenTarget, { kind: 'query' }> = {
        kind: 'query',
        collection: 'c',
        where: random.chance(0.5) ? parseWhere(['n__lt:7']) : [],
        ...(random.chance(0.7) ? { orderBy: parseOrderBy(random.chance(0.5) ? 'n' : '-n') } : {}),
        ...(random.chance(0.7) ? { limit: 1 + random.int(4) } : {}),
      };
      const stored = new Map<string, JsonObject>();
      const view = new ListenerView(target);
      view.replace(queryOf(target, stored));
      for (let commit = 0; commit < 30; commit++) {
        const changes = Array.from({ length: 1 + random.int(3) }, () => {
          const path = `${random.chance(0.9) ? 'c' : 'd'}/k${random.int(8)}`;
          const data = random.chance(0.2) ? null : { n: random.int(10) };
          if (data) stored.set(path, data);
          else stored.delete(path);
          return write(path, data);
        });
        if (view.apply(changes, all).kind === 'reload') view.replace(queryOf(target, stored));
        const want = queryOf(target, stored);
        const got = view.result();
        if (target.orderBy) expect(got).toEqual(want);
        else expect(got.map((d) => d.path).sort()).toEqual(want.map((d) => d.path).sort());
      }
    }
  });
});
