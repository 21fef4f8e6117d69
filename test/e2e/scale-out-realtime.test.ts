/**
 * Scale-out (§4, §7): two real server processes on one PostgreSQL schema and one Redis prefix
 * serve one project together. 50 subscribers spread over both; two writers, one per instance
 * (REST on one, WebSocket on the other), make 3,000 writes to shared paths. Every subscriber
 * receives every commit once, in version order, the same sequence as every other subscriber,
 * and ends equal to the stored tree. Then the cross-instance latency is measured (printed, not
 * asserted: BENCHMARKS.md records it).
 */
import { createHash, type Hash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { JsonValue } from '../../src/core/json.js';
import { segmentsOf } from '../../src/core/realtime/tree-path.js';
import { setValueAt } from '../../src/core/realtime/tree-value.js';
import {
  type ClusterProject,
  call,
  firstStart,
  freshSchema,
  signUp,
  startInstances,
  stopAll,
} from '../support/cluster.js';
import { postgresEngine } from '../support/engines.js';
import type { ServerProcess } from '../support/server-process.js';
import { redisUnavailable, TEST_REDIS_URL, uniqueRedisPrefix } from '../support/services.js';
import { open, type ServerMessage, type TestSocket } from '../support/ws-client.js';

const unavailable = postgresEngine.unavailable ?? (await redisUnavailable());

const SUBSCRIBERS = 50;
// 3,000 writes interleave the two writers over the 40 paths many times (10,000 took 36 s of the run's time).
const WRITES_PER_WRITER = 1_500;
const PATHS = 40;
const WINDOW = 16;
// A bound, not a target: the writes queue on the project's version row (10–20 s on 2 busy cores).
const STORM_TIMEOUT_MS = 120_000;

/** The write number `n` of a writer: mostly sets of shared paths, some PATCHes of two keys, some deletes. */
function writeOf(
  writer: 'rest' | 'ws',
  n: number,
): { kind: 'set' | 'patch' | 'delete'; path: string; value?: unknown } {
  const k = (n * 7 + (writer === 'rest' ? 0 : 3)) % PATHS;
  if (n % 10 === 9) return { kind: 'delete', path: `storm/p${k}` };
  if (n % 10 === 8) {
    return { kind: 'patch', path: 'storm', value: { [`p${k}`]: { w: writer, n }, [`p${(k + 1) % PATHS}/x`]: n } };
  }
  return { kind: 'set', path: `storm/p${k}`, value: { w: writer, n } };
}

/** Writes over REST, `WINDOW` requests in flight. */
async function restWriter(baseUrl: string, headers: Record<string, string>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < WRITES_PER_WRITER; n = next++) {
      const write = writeOf('rest', n);
      const method = write.kind === 'set' ? 'PUT' : write.kind === 'patch' ? 'PATCH' : 'DELETE';
      const body = write.kind === 'delete' ? undefined : { value: write.value };
      const response = await call(method, `${baseUrl}/realtime/db/${write.path}`, headers, body);
      if (response.status !== 200) throw new Error(`${method} ${write.path}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, worker));
}

/** Writes over one WebSocket, `WINDOW` unacknowledged messages at most. */
function socketWriter(url: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let sent = 0;
    let acked = 0;
    const send = () => {
      const write = writeOf('ws', sent);
      ws.send(JSON.stringify({ action: write.kind, path: write.path, value: write.value, id: sent }));
      sent += 1;
    };
    ws.on('open', () => {
      while (sent < Math.min(WINDOW, WRITES_PER_WRITER)) send();
    });
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as ServerMessage;
      if (message.event === 'error') reject(new Error(`socket writer: ${message.message}`));
      if (message.event !== 'ack') return;
      acked += 1;
      if (sent < WRITES_PER_WRITER) send();
      else if (acked === WRITES_PER_WRITER) {
        ws.close();
        resolve();
      }
    });
    ws.on('error', reject);
  });
}

/**
 * A subscriber that keeps what the checks need and not every message (50 × 3,000 of them):
 * its copy of the tree, a digest of its update sequence, and per-path order violations.
 */
class StormSubscriber {
  copy: JsonValue = null;
  updates = 0;
  lastVersion = 0;
  outOfOrder: string[] = [];
  private readonly digest: Hash = createHash('sha256');
  private readonly versionOfPath = new Map<string, number>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(data.toString()));
  }

  /** Opens a socket and subscribes it to `path`, resolving on its `init`. */
  static open(url: string, headers: Record<string, string>, path: string): Promise<StormSubscriber> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const subscriber = new StormSubscriber(ws);
      ws.once('open', () => ws.send(JSON.stringify({ action: 'subscribe', path, id: 'sub' })));
      ws.once('error', reject);
      subscriber.onInit = () => resolve(subscriber);
    });
  }

  onInit: () => void = () => undefined;

  /** The sequence of updates received, as one hash. */
  sequence(): string {
    return this.digest.copy().digest('hex');
  }

  private onMessage(text: string): void {
    const message = JSON.parse(text) as ServerMessage;
    if (message.event === 'init' && message.path !== undefined) {
      this.copy = setValueAt(this.copy, segmentsOf(message.path), message.value ?? null);
      this.lastVersion = message.version ?? 0;
      this.onInit();
      return;
    }
    if (message.event !== 'update' || message.path === undefined) return;
    const version = message.version ?? 0;
    if (version <= (this.versionOfPath.get(message.path) ?? 0)) this.outOfOrder.push(`${message.path}@${version}`);
    this.versionOfPath.set(message.path, version);
    this.copy = setValueAt(this.copy, segmentsOf(message.path), message.value ?? null);
    this.lastVersion = version;
    this.updates += 1;
    // Key order is not part of a value: a commit filled from PostgreSQL's change log (JSONB) orders keys its own way.
    this.digest.update(canonicalJson(message));
  }
}

/** JSON text with every object's keys sorted. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : item,
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

describe.skipIf(unavailable)('two instances on one PostgreSQL and one Redis (real processes)', () => {
  const schema = freshSchema();
  let servers: ServerProcess[] = [];
  const sockets: TestSocket[] = [];
  const storm: StormSubscriber[] = [];
  let project: ClusterProject;
  let writerA: Awaited<ReturnType<typeof signUp>>;
  let writerB: Awaited<ReturnType<typeof signUp>>;
  const wsUrl = (server: ServerProcess) => `${server.baseUrl.replace('http', 'ws')}/realtime/ws`;

  beforeAll(async () => {
    servers = await startInstances(2, {
      ...schema.env,
      REDIS_URL: TEST_REDIS_URL,
      CDS_REDIS_PREFIX: uniqueRedisPrefix(),
    });
    project = firstStart(servers);
    const [a, b] = servers as [ServerProcess, ServerProcess];
    writerA = await signUp(a.baseUrl, project, 'writer_a');
    writerB = await signUp(b.baseUrl, project, 'writer_b');
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close().catch(() => undefined)));
    for (const subscriber of storm) subscriber.ws.terminate();
    await stopAll(servers);
    await schema.drop();
  });

  it(
    'keeps 50 subscribers on both instances equal to the stored tree through 3,000 writes of two writers',
    async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const players = await Promise.all([0, 1].map((i) => signUp(servers[i]?.baseUrl ?? '', project, `sub_${i}`)));
      const subscribers = await Promise.all(
        Array.from({ length: SUBSCRIBERS }, (_, i) =>
          StormSubscriber.open(wsUrl(i % 2 === 0 ? a : b), players[i % 2]?.headers ?? {}, 'storm'),
        ),
      );
      storm.push(...subscribers);
      expect(subscribers.every((subscriber) => subscriber.lastVersion === 0)).toBe(true);

      const started = performance.now();
      await Promise.all([restWriter(a.baseUrl, writerA.headers), socketWriter(wsUrl(b), writerB.headers)]);
      const writesMs = performance.now() - started;
      const last = 2 * WRITES_PER_WRITER;
      await until(() => subscribers.every((subscriber) => subscriber.lastVersion === last), 30_000);
      console.log(
        `scale-out storm: ${last} writes in ${(writesMs / 1000).toFixed(1)} s (${Math.round(last / (writesMs / 1000))}/s), all ${SUBSCRIBERS} subscribers caught up ${((performance.now() - started - writesMs) / 1000).toFixed(2)} s later`,
      );

      const stored = await call('GET', `${b.baseUrl}/realtime/db/storm`, writerB.headers);
      expect(stored.status).toBe(200);
      const storedValue = (stored.body as { value: unknown }).value;
      expect(await call('GET', `${a.baseUrl}/realtime/db/storm`, writerA.headers)).toEqual(stored);
      // Each commit sends one update per written path: a set or delete one, a PATCH two.
      const patches = 2 * Math.floor((WRITES_PER_WRITER + 1) / 10);
      const reference = subscribers[0] as StormSubscriber;
      expect(reference.updates).toBe(last + patches);
      for (const subscriber of subscribers) {
        expect(subscriber.copy).toEqual({ storm: storedValue });
        expect(subscriber.outOfOrder).toEqual([]);
        // The same messages in the same order on every subscriber, whichever instance it is on.
        expect(subscriber.updates).toBe(reference.updates);
        expect(subscriber.sequence()).toBe(reference.sequence());
      }
    },
    STORM_TIMEOUT_MS,
  );

  it('delivers a write on one instance to a subscriber on the other (latency printed, not asserted)', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const samples: number[] = [];
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      const subscriber = await open(wsUrl(to), writerB.headers);
      const writer = await open(wsUrl(from), writerA.headers);
      sockets.push(subscriber, writer);
      await subscriber.request({ action: 'subscribe', path: 'latency', id: 'sub' });
      for (let i = 0; i < 100; i++) {
        const mark = subscriber.messages.length;
        const sent = performance.now();
        writer.send({ action: 'set', path: 'latency/probe', value: i });
        await subscriber.waitFor((m) => m.event === 'update' && m.value === i, { from: mark });
        samples.push(performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    samples.sort((x, y) => x - y);
    console.log(
      `cross-instance latency over ${samples.length} writes: p50 ${percentile(samples, 50).toFixed(2)} ms, p99 ${percentile(samples, 99).toFixed(2)} ms, max ${(samples.at(-1) ?? 0).toFixed(2)} ms`,
    );
    expect(samples).toHaveLength(200);
  });
});

/** Polls `done` every 50 ms (checking each message as it arrives would cost O(n²) over thousands of them). */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
