/**
 * The WebSocket workloads (§4): fan-out to subscribers of one path, paced (a steady rate of
 * writes) and in bursts (every write sent at once), measuring deliveries per second and
 * write→delivery latency; and the memory of idle subscribed sockets. The same client code runs
 * against the service (every write persisted before it is broadcast) and the bare `ws` server.
 * Clients run in a worker thread; every wait is bounded.
 */
import { Worker } from 'node:worker_threads';
import type { ChildServer } from './child.js';
import { sleep } from './child.js';
import type { ClientAnswer, ClientCommand, DeliveryReport } from './fanout-clients.js';
import type { BenchSettings } from './settings.js';

/** Where WebSocket clients connect, and with which headers. */
export interface WsTarget {
  url: string;
  headers: Record<string, string>;
}

/** Fan-out figures of one server. */
export interface FanoutResult {
  subscribers: number;
  paced: DeliveryReport;
  burst: DeliveryReport;
  /** With a baseline: its paced run just before the server's, and its bursts, each sent just
   * before one of the server's. */
  baselinePaced?: DeliveryReport;
  baselineBurst?: DeliveryReport;
}

/** Idle-socket memory of one server. */
export interface IdleMemoryResult {
  sockets: number;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  bytesPerSocket: number;
}

const CLIENTS_URL = new URL('./fanout-clients.ts', import.meta.url).href;
const FANOUT_PATH = 'fanout/room';

/** A worker thread of WebSocket clients, answering one command at a time. */
class ClientWorker {
  // Workers do not inherit tsx's loader, so the worker registers it before loading the clients.
  private readonly worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(CLIENTS_URL)}); });`,
    { eval: true },
  );

  send(command: ClientCommand, timeoutMs = 300_000): Promise<ClientAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${command.type}: no answer from the client worker`));
      }, timeoutMs);
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onMessage = (answer: ClientAnswer) => {
        cleanup();
        if (answer.type === 'error') reject(new Error(answer.message));
        else resolve(answer);
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.worker.off('error', onError);
        this.worker.off('message', onMessage);
      };
      this.worker.on('error', onError);
      this.worker.on('message', onMessage);
      this.worker.postMessage(command);
    });
  }

  async report(command: ClientCommand): Promise<DeliveryReport> {
    const answer = await this.send(command);
    if (answer.type !== 'report') throw new Error(`${command.type}: unexpected answer ${answer.type}`);
    return answer.report;
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Adds up bursts: deliveries over the summed time; latencies of the median burst. */
function combine(bursts: DeliveryReport[]): DeliveryReport {
  const sorted = [...bursts].sort((a, b) => a.latencyP50Ms - b.latencyP50Ms);
  const median = sorted[Math.floor(sorted.length / 2)];
  if (!median) throw new Error('no bursts');
  const sum = (pick: (r: DeliveryReport) => number) => bursts.reduce((total, r) => total + pick(r), 0);
  return {
    writes: sum((r) => r.writes),
    delivered: sum((r) => r.delivered),
    expected: sum((r) => r.expected),
    elapsedMs: sum((r) => r.elapsedMs),
    latencyP50Ms: median.latencyP50Ms,
    latencyP99Ms: Math.max(...bursts.map((r) => r.latencyP99Ms)),
    closedEarly: Math.max(...bursts.map((r) => r.closedEarly)),
  };
}

/**
 * `count` subscribers on one path; paced writes, then bursts. With a `baseline` server, as many
 * subscribers wait on it too and each run on the server follows the same run on the baseline, so
 * the two rates and latencies come from the same minutes.
 */
export async function measureFanout(
  target: WsTarget,
  settings: BenchSettings,
  count: number,
  baseline?: WsTarget,
): Promise<FanoutResult> {
  const clients = new ClientWorker();
  const baselineClients = baseline ? new ClientWorker() : null;
  try {
    await clients.send({ type: 'connect', url: target.url, headers: target.headers, count, path: FANOUT_PATH });
    if (baseline) {
      await baselineClients?.send({
        type: 'connect',
        url: baseline.url,
        headers: baseline.headers,
        count,
        path: FANOUT_PATH,
      });
    }
    // Untimed: a burst warms both servers' code paths (JIT), as the HTTP workloads' warm-up does.
    const warmUp = { type: 'burst', path: FANOUT_PATH, writes: settings.burstWrites } as const;
    await baselineClients?.report(warmUp);
    await clients.report(warmUp);
    const pacedRun = {
      type: 'paced',
      path: FANOUT_PATH,
      rate: settings.pacedRate,
      writes: settings.pacedWrites,
    } as const;
    const baselinePaced = await baselineClients?.report(pacedRun);
    const paced = await clients.report(pacedRun);
    const burst = { type: 'burst', path: FANOUT_PATH, writes: settings.burstWrites } as const;
    const bursts: DeliveryReport[] = [];
    const baselineBursts: DeliveryReport[] = [];
    for (let i = 0; i < settings.bursts; i++) {
      if (baselineClients) {
        await sleep(500);
        baselineBursts.push(await baselineClients.report(burst));
      }
      await sleep(500);
      bursts.push(await clients.report(burst));
    }
    await clients.send({ type: 'close' });
    await baselineClients?.send({ type: 'close' });
    return {
      subscribers: count,
      paced,
      burst: combine(bursts),
      ...(baselinePaced ? { baselinePaced, baselineBurst: combine(baselineBursts) } : {}),
    };
  } finally {
    await clients.terminate();
    await baselineClients?.terminate();
  }
}

/** RSS of the server before and after `settings.idleSockets` sockets each subscribe to their own path. */
export async function measureIdleSockets(
  target: WsTarget,
  server: ChildServer,
  settings: BenchSettings,
): Promise<IdleMemoryResult> {
  const clients = new ClientWorker();
  try {
    await sleep(settings.settleMs);
    const rssBeforeBytes = server.rss();
    const sockets = settings.idleSockets;
    await clients.send({ type: 'connect', url: target.url, headers: target.headers, count: sockets, path: null });
    await sleep(settings.settleMs);
    const rssAfterBytes = server.rss();
    await clients.send({ type: 'close' });
    // The server tears 10,000 sockets down and collects them: loads measured next start after that.
    await sleep(settings.settleMs);
    return { sockets, rssBeforeBytes, rssAfterBytes, bytesPerSocket: (rssAfterBytes - rssBeforeBytes) / sockets };
  } finally {
    await clients.terminate();
  }
}
