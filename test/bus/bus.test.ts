/**
 * The `Bus` conformance suite on the in-process bus, on the IPC bus of a cluster's workers (two
 * `IpcBus` and their primary's `IpcRelay`, over message ports: ordered, asynchronous and copying
 * like Node's IPC channel, which test/e2e/workers.test.ts crosses for real) and on Redis (the
 * shared Redis under a unique prefix), then what only Redis has: prefixes that keep deployments apart, and a private
 * redis-server killed and restarted under a subscription (fast failures while down, `onLoss`
 * once listening again).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process-bus.js';
import { IpcBus } from '../../src/bus/ipc-bus.js';
import type { FromRelay, ToRelay } from '../../src/bus/ipc-messages.js';
import { IpcRelay } from '../../src/bus/ipc-relay.js';
import { RedisBus } from '../../src/bus/redis-bus.js';
import { busCases } from '../conformance/bus.case.js';
import { messagePortPair } from '../support/ipc-ports.js';
import { freePort, type OwnRedis, startOwnRedis } from '../support/own-servers.js';
import { binariesUnavailable, redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';

const sharedRedisMissing = await redisUnavailable();
const redisServerMissing = binariesUnavailable(['redis-server']);

busCases({
  name: 'in-process',
  unavailable: null,
  async create() {
    const bus = new InProcessBus();
    return [bus, bus];
  },
});

busCases({
  name: 'IPC (cluster workers and their primary)',
  unavailable: null,
  async create() {
    const relay = new IpcRelay();
    const buses = [0, 1].map(() => {
      const [worker, primary] = messagePortPair<ToRelay, FromRelay>();
      relay.attach(primary);
      return new IpcBus(worker);
    });
    return [buses[0] as IpcBus, buses[1] as IpcBus];
  },
});

describe('IPC relay', () => {
  it('relays to the workers listening on a channel only, and forgets a worker that exits', async () => {
    const relay = new IpcRelay();
    const [workerA, primaryA] = messagePortPair<ToRelay, FromRelay>();
    const [workerB, primaryB] = messagePortPair<ToRelay, FromRelay>();
    relay.attach(primaryA);
    const detachB = relay.attach(primaryB);
    const [a, b] = [new IpcBus(workerA), new IpcBus(workerB)];
    const heard: string[] = [];
    const stopA = await a.subscribe('c', (message) => heard.push(`a:${message}`));
    await a.subscribe('c', (message) => heard.push(`a2:${message}`));
    await b.subscribe('c', (message) => heard.push(`b:${message}`));
    expect(relay.listening('c')).toBe(2);
    await stopA();
    expect(relay.listening('c')).toBe(2);
    detachB();
    expect(relay.listening('c')).toBe(1);
    await a.publish('c', 'x');
    await waitFor(() => heard.length === 1, 'the relayed message');
    await sleep(20);
    expect(heard).toEqual(['a2:x']);
    await expect(b.ping()).rejects.toThrow(/did not answer/);
    await a.close();
    await b.close();
  }, 10_000);
});

busCases({
  name: 'Redis',
  unavailable: sharedRedisMissing,
  async create() {
    const prefix = uniqueRedisPrefix();
    return [await RedisBus.open({ url: TEST_REDIS_URL, prefix }), await RedisBus.open({ url: TEST_REDIS_URL, prefix })];
  },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitFor = async (done: () => boolean, what: string, timeoutMs = 5_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe.skipIf(sharedRedisMissing)('Redis bus prefixes', () => {
  it('names every channel under the prefix, and deployments with different prefixes never hear each other', async () => {
    const prefix = uniqueRedisPrefix();
    const ours = await RedisBus.open({ url: TEST_REDIS_URL, prefix });
    const theirs = await RedisBus.open({ url: TEST_REDIS_URL, prefix: uniqueRedisPrefix() });
    const inspector = new Redis(TEST_REDIS_URL);
    try {
      const heard: string[] = [];
      const stop = await ours.subscribe('tree.1', (message) => heard.push(message));
      expect(await inspector.pubsub('CHANNELS', `${prefix}:*`)).toEqual([`${prefix}:tree.1`]);
      await theirs.publish('tree.1', 'not for us');
      await inspector.publish(`${prefix}:tree.1`, 'for us');
      await waitFor(() => heard.length === 1, 'the prefixed message');
      expect(heard).toEqual(['for us']);
      await stop();
      expect(await inspector.pubsub('CHANNELS', `${prefix}:*`)).toEqual([]);
    } finally {
      inspector.disconnect();
      await ours.close();
      await theirs.close();
    }
  });

  it('refuses to open when Redis does not answer', async () => {
    const port = await freePort();
    await expect(
      RedisBus.open({ url: `redis://127.0.0.1:${port}`, prefix: 'x', connectTimeoutMs: 500 }),
    ).rejects.toThrow(/Redis not reachable/);
  });
});

describe.skipIf(redisServerMissing)('Redis bus across a Redis restart (private redis-server)', () => {
  let redis: OwnRedis | undefined;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  it('fails fast while Redis is down, resubscribes by itself, then reports the possible loss', async () => {
    const url = redis?.url ?? '';
    const publisher = await RedisBus.open({ url, prefix: 'restart' });
    const subscriber = await RedisBus.open({ url, prefix: 'restart' });
    try {
      const heard: string[] = [];
      let losses = 0;
      await subscriber.subscribe(
        'feed',
        (message) => heard.push(message),
        () => {
          losses += 1;
        },
      );
      await publisher.publish('feed', 'before');
      await waitFor(() => heard.length === 1, 'the first message');

      await redis?.stop();
      const started = Date.now();
      await expect(publisher.publish('feed', 'lost')).rejects.toThrow();
      await expect(subscriber.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_000);
      // A subscription made while Redis is down does not wait for it either.
      let lateLosses = 0;
      await subscriber.subscribe(
        'late',
        () => undefined,
        () => {
          lateLosses += 1;
        },
      );

      await redis?.start();
      await waitFor(() => losses === 1 && lateLosses === 1, 'onLoss after reconnection', 10_000);
      await waitFor(() => {
        void publisher.publish('feed', 'after').catch(() => undefined);
        return heard.includes('after');
      }, 'a message after reconnection');
      expect(heard[0]).toBe('before');
      expect(heard).not.toContain('lost');
      await expect(subscriber.ping()).resolves.toBeUndefined();
    } finally {
      await publisher.close();
      await subscriber.close();
    }
  });
});
