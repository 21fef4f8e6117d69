/**
 * The client side of the fan-out workload, run in a worker thread so that clients and server do
 * not share an event loop: subscribers on a shared path and on distinct paths, and one writer
 * keeping a window of writes in flight. Counts deliveries and samples write→delivery latency.
 */
import { parentPort } from 'node:worker_threads';
import type WebSocket from 'ws';
import { openSocket, withTimeout as timeout } from './socket-helpers.js';

/** Commands from the main thread. */
export type ClientCommand =
  | { type: 'connect'; url: string; headers: Record<string, string>; shared: number; distinct: number }
  | { type: 'run'; durationMs: number; window: number; maxWrites: number; gapMs: number }
  | { type: 'close' };

/** What a run measured on the client side. */
export interface ClientReport {
  writes: number;
  sharedWrites: number;
  distinctWrites: number;
  delivered: number;
  expected: number;
  elapsedMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  closedEarly: number;
}

export const SHARED_PATH = 'bench/room';
export const distinctPath = (i: number) => `bench/rooms/r${i}`;

const SAMPLES = 1_000_000;
const CONNECT_BATCH = 50;
const STEP_TIMEOUT_MS = 60_000;

const withTimeout = <T>(promise: Promise<T>, what: string) => timeout(promise, what, STEP_TIMEOUT_MS);

const now = () => performance.timeOrigin + performance.now();
const latencies = new Float64Array(SAMPLES);
let sampled = 0;
let delivered = 0;
let closedEarly = 0;
let subscribers: WebSocket[] = [];
let writer: WebSocket | null = null;

function reply(message: unknown): void {
  parentPort?.postMessage(message);
}

/** Counts an update; its value carries the writer's send time `t`, read without parsing the whole message. */
function onUpdate(data: WebSocket.RawData): void {
  delivered += 1;
  const text = data.toString();
  const at = text.indexOf('"t":');
  if (at < 0 || sampled >= SAMPLES) return;
  latencies[sampled++] = now() - Number.parseFloat(text.slice(at + 4));
}

async function connect(command: Extract<ClientCommand, { type: 'connect' }>): Promise<void> {
  const paths = [
    ...Array.from({ length: command.shared }, () => SHARED_PATH),
    ...Array.from({ length: command.distinct }, (_, i) => distinctPath(i)),
  ];
  for (let i = 0; i < paths.length; i += CONNECT_BATCH) {
    const batch = paths.slice(i, i + CONNECT_BATCH);
    const opened = await withTimeout(
      Promise.all(
        batch.map((path) => openSocket(command.url, command.headers, { action: 'subscribe', path, id: 'sub' })),
      ),
      'connecting subscribers',
    );
    for (const ws of opened) {
      ws.on('message', onUpdate);
      ws.on('close', () => {
        closedEarly += 1;
      });
    }
    subscribers.push(...opened);
  }
  writer = await withTimeout(openSocket(command.url, command.headers, null), 'connecting the writer');
}

async function run(command: Extract<ClientCommand, { type: 'run' }>, distinct: number): Promise<ClientReport> {
  const socket = writer;
  if (!socket) throw new Error('not connected');
  delivered = 0;
  sampled = 0;
  let sent = 0;
  let acked = 0;
  let sharedWrites = 0;
  let distinctWrites = 0;
  let stopping = false;
  const started = now();
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const sendOne = () => {
    const shared = sent % 2 === 0;
    const path = shared ? `${SHARED_PATH}/state` : `${distinctPath(distinctWrites % distinct)}/state`;
    if (shared) sharedWrites += 1;
    else distinctWrites += 1;
    socket.send(JSON.stringify({ action: 'set', path, value: { t: now(), n: sent }, id: sent }));
    sent += 1;
  };
  socket.on('message', (data) => {
    if (!data.toString().includes('"ack"')) return;
    acked += 1;
    if (!stopping && now() - started >= command.durationMs) stopping = true;
    if (!stopping && sent < command.maxWrites) {
      if (command.gapMs > 0) setTimeout(sendOne, command.gapMs);
      else sendOne();
    } else if (acked === sent) finish();
  });
  for (let i = 0; i < command.window && sent < command.maxWrites; i++) sendOne();
  await withTimeout(finished, 'the writer');
  const elapsedMs = now() - started;
  const expected = sharedWrites * subscribersOn(SHARED_PATH) + distinctWrites;
  // Let the last deliveries arrive (bounded wait).
  const deadline = now() + 5_000;
  while (delivered < expected && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  socket.removeAllListeners('message');
  const sorted = Array.from(latencies.subarray(0, sampled)).sort((a, b) => a - b);
  const pick = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return {
    writes: acked,
    sharedWrites,
    distinctWrites,
    delivered,
    expected,
    elapsedMs,
    latencyP50Ms: pick(0.5),
    latencyP99Ms: pick(0.99),
    closedEarly,
  };
}

let sharedCount = 0;
let distinctCount = 1;
const subscribersOn = (path: string) => (path === SHARED_PATH ? sharedCount : 1);

parentPort?.on('message', (command: ClientCommand) => {
  const handle = async () => {
    switch (command.type) {
      case 'connect':
        sharedCount = command.shared;
        distinctCount = Math.max(1, command.distinct);
        await connect(command);
        return { type: 'connected', sockets: subscribers.length + 1 };
      case 'run':
        return { type: 'report', report: await run(command, distinctCount) };
      case 'close':
        for (const ws of subscribers) ws.removeAllListeners('close');
        for (const ws of [...subscribers, writer]) ws?.terminate();
        subscribers = [];
        writer = null;
        return { type: 'closed' };
    }
  };
  handle().then(reply, (error: unknown) => reply({ type: 'error', message: String(error) }));
});
