/**
 * The client side of the WebSocket workloads, run in a worker thread so that clients and the
 * main thread do not share an event loop: subscribers (on one shared path, or each on its own
 * path for the idle-memory figure) and one writer, paced or in bursts. Counts deliveries and
 * samples write→delivery latency from the send time each written value carries.
 */
import { parentPort } from 'node:worker_threads';
import type WebSocket from 'ws';
import { openSocket, withTimeout as timeout } from './socket-helpers.js';

/** Commands from the main thread. */
export type ClientCommand =
  | {
      type: 'connect';
      url: string;
      headers: Record<string, string>;
      count: number;
      /** The path every subscriber subscribes to; null: subscriber `i` takes `idle/s<i>`. */
      path: string | null;
    }
  | { type: 'paced'; path: string; rate: number; writes: number }
  | { type: 'burst'; path: string; writes: number }
  | { type: 'close' };

/** What one paced run or burst measured on the client side. */
export interface DeliveryReport {
  writes: number;
  delivered: number;
  expected: number;
  /** From the first write sent to the last delivery received. */
  elapsedMs: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  closedEarly: number;
}

/** Answers to the main thread. */
export type ClientAnswer =
  | { type: 'connected'; sockets: number }
  | { type: 'report'; report: DeliveryReport }
  | { type: 'closed' }
  | { type: 'error'; message: string };

const SAMPLES = 2_000_000;
const CONNECT_BATCH = 100;
const STEP_TIMEOUT_MS = 120_000;

const withTimeout = <T>(promise: Promise<T>, what: string, ms = STEP_TIMEOUT_MS) => timeout(promise, what, ms);
const DELIVERY_GRACE_MS = 15_000;

const now = () => performance.timeOrigin + performance.now();
const latencies = new Float64Array(SAMPLES);
let sampled = 0;
let delivered = 0;
let lastDelivery = 0;
let closedEarly = 0;
let subscribers: WebSocket[] = [];
let writer: WebSocket | null = null;
let connection: Extract<ClientCommand, { type: 'connect' }> | null = null;

/** Counts an update; its value carries the writer's send time `t`, read without parsing the whole message. */
function onUpdate(data: WebSocket.RawData): void {
  delivered += 1;
  const at = now();
  lastDelivery = at;
  const text = data.toString();
  const t = text.indexOf('"t":');
  if (t < 0 || sampled >= SAMPLES) return;
  latencies[sampled++] = at - Number.parseFloat(text.slice(t + 4));
}

async function connect(command: Extract<ClientCommand, { type: 'connect' }>): Promise<number> {
  connection = command;
  for (let i = 0; i < command.count; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, command.count - i) }, (_, j) =>
      openSocket(command.url, command.headers, {
        action: 'subscribe',
        path: command.path ?? `idle/s${i + j}`,
        id: 'sub',
      }),
    );
    const opened = await withTimeout(Promise.all(batch), 'connecting subscribers');
    for (const ws of opened) {
      ws.on('message', onUpdate);
      ws.on('close', () => {
        closedEarly += 1;
      });
    }
    subscribers.push(...opened);
  }
  return subscribers.length;
}

async function writerSocket(): Promise<WebSocket> {
  if (!connection) throw new Error('not connected');
  writer ??= await withTimeout(openSocket(connection.url, connection.headers, null), 'connecting the writer');
  return writer;
}

/** Sends `writes` writes, `intervalMs` apart (0: all at once), then waits (bounded) for every delivery. */
async function deliver(path: string, writes: number, intervalMs: number): Promise<DeliveryReport> {
  const socket = await writerSocket();
  delivered = 0;
  sampled = 0;
  const expected = writes * subscribers.length;
  const started = now();
  const send = (n: number) =>
    socket.send(JSON.stringify({ action: 'set', path: `${path}/state`, value: { t: now(), n }, id: n }));
  if (intervalMs === 0) {
    for (let n = 0; n < writes; n++) send(n);
  } else {
    // Each write at its own time from the start, so a late timer does not slow the pace down.
    for (let n = 0; n < writes; n++) {
      const wait = started + n * intervalMs - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      send(n);
    }
  }
  const deadline = now() + DELIVERY_GRACE_MS;
  while (delivered < expected && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const sorted = latencies.subarray(0, sampled).sort();
  const pick = (q: number) => sorted[Math.min(sampled - 1, Math.floor(q * sampled))] ?? Number.NaN;
  return {
    writes,
    delivered,
    expected,
    elapsedMs: lastDelivery - started,
    latencyP50Ms: pick(0.5),
    latencyP99Ms: pick(0.99),
    closedEarly,
  };
}

function close(): void {
  for (const ws of subscribers) ws.removeAllListeners('close');
  for (const ws of [...subscribers, writer]) ws?.terminate();
  subscribers = [];
  writer = null;
  connection = null;
}

async function handle(command: ClientCommand): Promise<ClientAnswer> {
  switch (command.type) {
    case 'connect':
      return { type: 'connected', sockets: await connect(command) };
    case 'paced':
      return { type: 'report', report: await deliver(command.path, command.writes, 1000 / command.rate) };
    case 'burst':
      return { type: 'report', report: await deliver(command.path, command.writes, 0) };
    case 'close':
      close();
      return { type: 'closed' };
  }
}

parentPort?.on('message', (command: ClientCommand) => {
  handle(command).then(
    (answer) => parentPort?.postMessage(answer),
    (error: unknown) => parentPort?.postMessage({ type: 'error', message: String(error) } satisfies ClientAnswer),
  );
});
