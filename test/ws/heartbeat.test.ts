/**
 * Heartbeats (§17): a socket is dropped after two missed pongs in a row, not one, and a sign of
 * life (a pong, a message, the client's own ping) resets the count; a client whose network is cut
 * (a TCP proxy in the test that stops forwarding without closing anything) is ended by the server
 * and its on-disconnect write runs. The heartbeat is 1 s here.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { SessionSocket } from '../../src/ws/session-socket.js';
import { engines } from '../support/engines.js';
import { startRealtimeApp } from '../support/realtime.js';
import { open } from '../support/ws-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stand-in for a `ws` socket: counts pings and terminations. */
class FakeSocket extends EventEmitter {
  pings = 0;
  terminated = 0;
  readyState = 1;
  bufferedAmount = 0;
  ping(): void {
    this.pings += 1;
  }
  terminate(): void {
    this.terminated += 1;
  }
}

function sessionSocket(): { fake: FakeSocket; out: SessionSocket } {
  const fake = new FakeSocket();
  const out = new SessionSocket(
    fake as unknown as WebSocket,
    { maxBufferedBytes: 1 << 20, closeGraceMs: 1000, slowConsumerGraceMs: 1000 },
    { closing: () => undefined, closed: () => undefined },
  );
  return { fake, out };
}

describe('the heartbeat of one socket', () => {
  it('drops a socket after two missed pongs in a row, not after one', () => {
    const { fake, out } = sessionSocket();
    out.ping();
    out.checkPong();
    expect(fake.terminated).toBe(0);
    out.ping();
    out.checkPong();
    expect(fake.terminated).toBe(1);
    expect(fake.pings).toBe(2);
  });

  it('starts counting again after a pong, a client ping or a message', () => {
    const { fake, out } = sessionSocket();
    for (const signOfLife of [() => fake.emit('pong'), () => fake.emit('ping'), () => out.markAlive()]) {
      out.ping();
      out.checkPong();
      out.ping();
      signOfLife();
      out.checkPong();
      expect(fake.terminated).toBe(0);
    }
    out.ping();
    out.checkPong();
    expect(fake.terminated).toBe(0);
    out.ping();
    out.checkPong();
    expect(fake.terminated).toBe(1);
  });
});

/** A TCP proxy to `port` whose `cut` stops forwarding both ways without closing either side. */
async function proxyTo(port: number) {
  const pairs: [net.Socket, net.Socket][] = [];
  let upstreamEnded = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.on('end', () => {
      upstreamEnded += 1;
    });
    upstream.on('error', () => undefined);
    client.on('error', () => undefined);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        // Read and throw away: nothing reaches the other side, and nothing is closed.
        client.on('data', () => undefined).resume();
        upstream.on('data', () => undefined).resume();
      }
    },
    upstreamEnded: () => upstreamEnded,
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`a client whose network is cut, on ${engine.name}`, () => {
    it('is ended by the server after two missed pongs, and its on-disconnect write runs', async () => {
      const t = await startRealtimeApp(engine, { CDS_WS_HEARTBEAT_S: '1' });
      const appPort = Number(new URL(t.wsUrl).port);
      const proxy = await proxyTo(appPort);
      try {
        const player = await open(`ws://127.0.0.1:${proxy.port}/realtime/ws`, t.headers);
        const ack = await player.request({ action: 'on_disconnect', op: 'delete', path: 'online/ann', id: 1 });
        expect(ack.event).toBe('ack');
        await player.request({ action: 'set', path: 'online/ann', value: true, id: 2 });
        proxy.cut();
        const deadline = Date.now() + 15_000;
        while (t.app.realtime.connections > 0 && Date.now() < deadline) await sleep(50);
        expect(t.app.realtime.connections).toBe(0);
        await t.app.services.disconnectOps.settled();
        expect((await t.app.services.tree.get(t.project.projectId, 'online/ann')).value).toBeNull();
        // The server ended the connection (its side of the proxy got the end); the client saw nothing.
        for (let i = 0; i < 100 && proxy.upstreamEnded() === 0; i++) await sleep(20);
        expect(proxy.upstreamEnded()).toBe(1);
        expect(player.ws.readyState).toBe(player.ws.OPEN);
        player.ws.terminate();
      } finally {
        await proxy.close();
        await t.close();
      }
    }, 30_000);
  });
}
