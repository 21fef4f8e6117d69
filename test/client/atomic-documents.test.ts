/** §12 atomic document writes through the SDK (§11): versions, preconditions, transforms, batches. */
import { describe, expect, it } from 'vitest';
import {
  arrayRemove,
  arrayUnion,
  deleteField,
  increment,
  maximum,
  minimum,
  serverTime,
} from '../../packages/client/src/index.js';
import { caught, serviceForSuite } from './service.js';

const suite = serviceForSuite();

const signedIn = (device: string) => suite.guest(device);

describe('versions and preconditions', () => {
  it('reads versions from ETags and refuses stale writes with precondition-failed', async () => {
    const client = await signedIn('atomic-1');
    const doc = client.doc('saves/s1');
    expect(await caught(doc.set({ level: 1 }, { ifMatch: 1 }))).toMatchObject({
      status: 412,
      code: 'precondition-failed',
    });
    const created = await doc.set({ level: 1 }, { ifAbsent: true });
    expect(created.version).toBeGreaterThan(0);
    expect((await doc.get())?.version).toBe(created.version);
    expect(await caught(doc.set({ level: 9 }, { ifAbsent: true }))).toMatchObject({ code: 'precondition-failed' });

    const updated = await doc.update({ level: 2 }, { ifMatch: created.version });
    expect(updated.version).toBeGreaterThan(created.version);
    expect(await caught(doc.update({ level: 3 }, { ifMatch: created.version }))).toMatchObject({
      status: 412,
      detail: 'Precondition failed',
    });
    expect(await caught(doc.delete({ ifMatch: created.version }))).toMatchObject({ code: 'precondition-failed' });
    expect((await doc.get())?.data).toEqual({ level: 2 });
    await doc.delete({ ifMatch: '*' });
    expect(await doc.get()).toBeNull();

    const added = await client.collection('saves').add({ level: 0 });
    expect(added.version).toBeGreaterThan(updated.version);
  });
});

describe('transforms', () => {
  it('turns the helpers into §11 transforms, top level and nested', async () => {
    const client = await signedIn('atomic-2');
    const doc = client.doc('players/p1');
    await doc.set({ name: 'ann', coins: increment(5), tags: arrayUnion('a', 'b'), stats: { best: maximum(10) } });
    const written = await doc.update({
      coins: increment(2),
      tags: arrayRemove('a'),
      stats: { best: maximum(7), worst: minimum(3) },
      seen: serverTime(),
      name: deleteField(),
    });
    expect(written.data).toMatchObject({ coins: 7, tags: ['b'], stats: { best: 10, worst: 3 } });
    expect(written.data).not.toHaveProperty('name');
    expect(String(written.data.seen)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await caught(doc.update({ stats: { best: 1, worst: minimum(0) } }))).toMatchObject({
      code: 'invalid-argument',
    });
  });

  it('ends exact under concurrent increments from several clients', async () => {
    const players = await Promise.all([1, 2, 3, 4, 5].map((i) => signedIn(`atomic-inc-${i}`)));
    await players[0]?.doc('counters/c1').set({ n: 0 });
    await Promise.all(
      players.map(async (client) => {
        for (let k = 0; k < 20; k++) await client.doc('counters/c1').update({ n: increment(1) });
      }),
    );
    expect((await players[0]?.doc('counters/c1').get())?.data).toEqual({ n: 100 });
  });
});

describe('batch()', () => {
  it('commits every write in one version, or none', async () => {
    const client = await signedIn('atomic-3');
    const base = await client.doc('inv/a').set({ gold: 10 });
    const result = await client
      .batch()
      .update('inv/a', { gold: increment(-3) }, { ifMatch: base.version })
      .set('inv/b', { gold: 3 }, { ifAbsent: true })
      .create('inv/a/log', { moved: 3 })
      .commit();
    expect(result.results).toHaveLength(3);
    expect(result.results.every((r) => !('version' in r) || r.version === result.version)).toBe(true);
    expect((await client.doc('inv/a').get())?.data).toEqual({ gold: 7 });
    expect((await client.doc('inv/a').get())?.version).toBe(result.version);

    const failed = await caught(
      client.batch().update('inv/a', { gold: 0 }).delete('inv/b', { ifMatch: base.version }).commit(),
    );
    expect(failed).toMatchObject({ status: 412, code: 'precondition-failed' });
    expect(String((failed as Error).message)).toMatch(/^writes\[1\]/);
    expect((await client.doc('inv/a').get())?.data).toEqual({ gold: 7 });
    expect(await caught(client.batch().delete('inv/missing').commit())).toMatchObject({ status: 404 });
  });
});
