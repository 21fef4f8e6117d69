/**
 * The instance side of on-disconnect writes (§17), over a real SQLite engine: a started instance
 * runs the ops of a lapsed lease it claims, once; one whose own lease was taken over (it was paused
 * past it) tells the connections that had ops, and only those, so their sockets end; a connection
 * ending runs its ops from memory even after another instance took their rows, once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process-bus.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/functions/before-hooks.js';
import { defaultPathLimits } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import type { DisconnectOp } from '../../src/core/realtime/disconnect-op-store.js';
import { DisconnectOps } from '../../src/core/realtime/disconnect-ops.js';
import { defaultRetention, TreeService } from '../../src/core/realtime/tree-service.js';
import { sqliteEngine } from '../support/engines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 600;
const quiet = { debug: () => undefined, warn: () => undefined };

describe('on-disconnect writes of an instance (§17)', () => {
  let storage: Storage;
  let tree: TreeService;
  const instances: DisconnectOps[] = [];

  const instance = () => {
    const ops = new DisconnectOps({
      store: storage.disconnectOps,
      tree,
      clock: systemClock,
      pathLimits: defaultPathLimits,
      leaseMs: LEASE_MS,
      log: quiet,
      hookLog: silentLogger,
    });
    instances.push(ops);
    return ops;
  };
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await check()); i++) await sleep(50);
    expect(await check()).toBe(true);
  };

  beforeEach(async () => {
    storage = await sqliteEngine.create();
    tree = new TreeService(storage.tree, new InProcessBus(), { retention: defaultRetention });
  });
  afterEach(async () => {
    for (const each of instances.splice(0)) await each.stop();
    await sqliteEngine.destroy(storage);
  });

  it('claims a lapsed lease and runs its ops once, in order per connection', async () => {
    const dead = 'dead-instance';
    await storage.disconnectOps.startLease(dead, Date.now() - 1);
    const op = (connectionId: string, seq: number, fields: Partial<DisconnectOp>): DisconnectOp => ({
      id: `${connectionId}-${seq}`,
      instanceId: dead,
      connectionId,
      seq,
      projectId: 5,
      op: 'set',
      path: `seats/${connectionId}`,
      value: seq,
      userId: null,
      auth: null,
      createdAt: Date.now(),
      ...fields,
    });
    for (const each of [
      op('a', 1, {}),
      op('a', 2, { op: 'patch', path: 'seats', value: { a: 'second' } }),
      op('b', 1, {}),
    ])
      await storage.disconnectOps.add(each);
    const taker = instance();
    taker.start();
    await until(async () => (await storage.disconnectOps.ofInstance(taker.instanceId)).length === 0);
    await taker.settled();
    expect((await tree.snapshot(5, 'seats')).value).toEqual({ a: 'second', b: 1 });
    expect(await tree.currentVersion(5)).toBe(3);
    expect(await storage.disconnectOps.renewLease(dead, Date.now() + 10_000)).toBe(false);
  });

  it('ends the connections that had ops when its own lease was taken over, and their ops run once', async () => {
    const paused = instance();
    paused.start();
    let endedWith = 0;
    let endedWithout = 0;
    const withOps = paused.connection(6, undefined, () => {
      endedWith += 1;
    });
    paused.connection(6, undefined, () => {
      endedWithout += 1;
    });
    await withOps.request({ op: 'set', path: 'online/ann', value: true });
    // Another instance sees the lease lapse (as after a long pause) and takes its ops.
    const taker = instance();
    expect(await storage.disconnectOps.claimLapsed(taker.instanceId, Date.now() + 10 * LEASE_MS)).toBe(1);
    await until(async () => endedWith === 1);
    expect(endedWithout).toBe(0);
    // The socket ends: its op runs from memory here, by its id, though its row is now the taker's.
    await withOps.end();
    expect(await storage.disconnectOps.ofInstance(taker.instanceId)).toEqual([]);
    expect((await tree.snapshot(6, 'online')).value).toEqual({ ann: true });
    expect(await tree.currentVersion(6)).toBe(1);
    // The paused instance holds a lease again: a new connection's ops are stored under it.
    const next = paused.connection(6, undefined, () => undefined);
    await next.request({ op: 'delete', path: 'online/ann' });
    expect(await storage.disconnectOps.ofInstance(paused.instanceId)).toHaveLength(1);
  });
});
