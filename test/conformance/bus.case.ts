/**
 * Behavioural tests of the `Bus` port, run against every implementation by test/bus/bus.test.ts.
 * Two buses made by one fixture stand for two instances sharing the bus; the in-process fixture
 * returns the same bus twice, since one process is all it serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/core/bus.js';

/** A way to make buses that hear each other, or why this one cannot run here. */
export interface BusFixture {
  name: string;
  unavailable: string | null;
  /** Two buses of one deployment (two instances); closed by the suite. */
  create(): Promise<[Bus, Bus]>;
}

/** Collects the messages a listener receives. */
function collector(): { messages: string[]; listener: (message: string) => void; until(count: number): Promise<void> } {
  const messages: string[] = [];
  return {
    messages,
    listener: (message) => messages.push(message),
    async until(count) {
      const deadline = Date.now() + 5_000;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${messages.length} of ${count} messages`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the bus suite for one implementation. */
export function busCases(fixture: BusFixture): void {
  describe.skipIf(fixture.unavailable)(`Bus: ${fixture.name}`, () => {
    let first: Bus;
    let second: Bus;
    beforeAll(async () => {
      [first, second] = await fixture.create();
    });
    afterAll(async () => {
      await first?.close();
      if (second !== first) await second?.close();
    });

    it('delivers every message to every listener of the channel, on either bus, in publish order', async () => {
      const here = collector();
      const there = collector();
      const stops = [await first.subscribe('order', here.listener), await second.subscribe('order', there.listener)];
      const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
      for (const message of sent) void first.publish('order', message);
      await first.publish('order', 'last');
      await here.until(201);
      await there.until(201);
      expect(here.messages).toEqual([...sent, 'last']);
      expect(there.messages).toEqual([...sent, 'last']);
      for (const stop of stops) await stop();
    });

    it('keeps channels apart and stops delivering once unsubscribed', async () => {
      const a = collector();
      const b = collector();
      const stopA = await second.subscribe('apart.a', a.listener);
      const stopB = await second.subscribe('apart.b', b.listener);
      await first.publish('apart.a', 'to a');
      await a.until(1);
      await stopA();
      await first.publish('apart.a', 'too late');
      await first.publish('apart.b', 'to b');
      await b.until(1);
      await sleep(20);
      expect(a.messages).toEqual(['to a']);
      expect(b.messages).toEqual(['to b']);
      await stopB();
    });

    it('counts each subscription: the same listener twice hears twice until one is stopped', async () => {
      const heard = collector();
      const stop1 = await second.subscribe('twice', heard.listener);
      const stop2 = await second.subscribe('twice', heard.listener);
      await first.publish('twice', 'x');
      await heard.until(2);
      await stop1();
      await first.publish('twice', 'y');
      await heard.until(3);
      await sleep(20);
      expect(heard.messages).toEqual(['x', 'x', 'y']);
      await stop2();
    });

    it('keeps delivering to the others when a listener throws', async () => {
      const heard = collector();
      const stopBad = await second.subscribe('throws', () => {
        throw new Error('listener failure');
      });
      const stopGood = await second.subscribe('throws', heard.listener);
      await first.publish('throws', 'still');
      await heard.until(1);
      await stopBad();
      await stopGood();
    });

    it('answers ping while open and refuses work once closed', async () => {
      await expect(first.ping()).resolves.toBeUndefined();
      const [spare, other] = await fixture.create();
      await spare.close();
      if (other !== spare) await other.close();
      await expect(spare.ping()).rejects.toThrow();
      await expect(spare.publish('closed', 'x')).rejects.toThrow();
    });
  });
}
