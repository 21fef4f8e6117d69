/** §12 realtime writes over the one socket: transactions on `if_match`, `.sv` values, writes queued while offline. */
import { describe, expect, it } from 'vitest';
import { CdsError, type ClientOptions, serverIncrement, serverTimestamp } from '../../packages/client/src/index.js';
import { caught, serviceForSuite, until } from './service.js';

const suite = serviceForSuite();

const signedIn = (device: string, options: Partial<ClientOptions> = {}) => suite.guest(device, options);

describe('ref().transaction', () => {
  it('retries on a changed value until it wins: concurrent increments end exact', async () => {
    const players = await Promise.all([1, 2, 3, 4, 5].map((i) => signedIn(`tx-${i}`)));
    const results = await Promise.all(
      players.map(async (client) => {
        const committed: unknown[] = [];
        for (let k = 0; k < 10; k++) {
          const result = await client.ref('tx/counter').transaction((n) => (typeof n === 'number' ? n : 0) + 1);
          expect(result.committed).toBe(true);
          committed.push(result.value);
        }
        return committed;
      }),
    );
    expect(await players[0]?.ref('tx/counter').get()).toBe(50);
    // Each committed value was written by exactly one transaction.
    expect(new Set(results.flat()).size).toBe(50);
  });

  it('aborts when fn returns undefined, and refuses a bad path with a typed error', async () => {
    const client = await signedIn('tx-abort');
    await client.ref('tx/flag').set('taken');
    const result = await client.ref('tx/flag').transaction((v) => (v === null ? 'mine' : undefined));
    expect(result).toEqual({ committed: false, value: 'taken' });
    expect(await client.ref('tx/flag').get()).toBe('taken');
    expect(await client.ref('tx/new').transaction((v) => (v === null ? { owner: 'me' } : undefined))).toEqual({
      committed: true,
      value: { owner: 'me' },
    });
    const bad = await caught(client.ref('tx/../x').set(1));
    expect(bad).toBeInstanceOf(CdsError);
    expect(bad).toMatchObject({ code: 'invalid-argument' });
  });
});

describe('server values', () => {
  it('serverIncrement from several clients ends exact; serverTimestamp stores the commit time', async () => {
    const players = await Promise.all([1, 2, 3].map((i) => signedIn(`sv-${i}`)));
    await Promise.all(
      players.map(async (client) => {
        for (let k = 0; k < 20; k++) await client.ref('sv').update({ hits: serverIncrement(1) });
      }),
    );
    expect(await players[0]?.ref('sv/hits').get()).toBe(60);
    const before = Date.now();
    await players[0]?.ref('sv/at').set(serverTimestamp());
    const at = Number(await players[0]?.ref('sv/at').get());
    expect(Math.abs(at - before)).toBeLessThan(60_000);
  });
});

describe('writes while disconnected', () => {
  it('wait for the server and are sent in order after it restarts; one waiting too long fails with network', async () => {
    const client = await signedIn('offline-writer');
    const impatient = await signedIn('offline-impatient', { offlineWriteTimeoutMs: 300 });
    const seen: unknown[] = [];
    client.ref('offline').onValue((value) => seen.push(value));
    impatient.ref('offline-2').onValue(() => {});
    await until(() => seen.length === 1);
    await client.ref('offline/log').set(['start']);
    await until(() => seen.length === 2);

    await suite.service.kill();
    const writes = [
      ...[1, 2, 3, 4, 5].map((k) => client.ref('offline/n').set(k)),
      client.ref('offline').update({ note: 'down', last: 5 }),
      client.ref('offline/n').remove(),
      client.ref('offline/m').set(serverIncrement(1)),
    ];
    const late = caught(impatient.ref('offline-2/x').set(1));
    expect(await late).toMatchObject({ code: 'network', status: 0 });
    await suite.service.restart();
    await Promise.all(writes);
    expect(await client.ref('offline').get()).toEqual({ log: ['start'], note: 'down', last: 5, m: 1 });
    await until(() => (seen.at(-1) as { m?: number } | null)?.m === 1);
    expect(seen.at(-1)).toEqual(await client.ref('offline').get());
    expect(await impatient.ref('offline-2').get()).toBeNull();
  });

  it('are sent in order after a dropped connection: the stored value is the last write', async () => {
    const client = await signedIn('offline-order');
    const seen: unknown[] = [];
    client.ref('order/n').onValue((value) => seen.push(value));
    await until(() => seen.length === 1);
    client.socket.reconnect();
    const writes = Array.from({ length: 50 }, (_, k) => client.ref('order/n').set(k + 1));
    await Promise.all(writes);
    expect(await client.ref('order/n').get()).toBe(50);
    await until(() => seen.at(-1) === 50);
    const values = seen.slice(1) as number[];
    expect(values.every((v, i) => i === 0 || v > (values[i - 1] ?? 0))).toBe(true);
  });
});
