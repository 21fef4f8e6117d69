/**
 * The cluster primary (CDS_WORKERS > 1). It prepares the database once (migrations, the
 * first-start credentials, the generated JWT secret), then forks CDS_WORKERS workers that share
 * the port (node:cluster hands each new connection to a worker in turn), relays the bus between
 * them when no Redis is configured (`IpcRelay`), restarts a worker that dies, and on SIGTERM or
 * SIGINT drains every worker (each runs its own graceful shutdown) before it exits. It serves no
 * request itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { pino } from 'pino';
import { openStorage } from './adapters.js';
import type { FromRelay, ToRelay } from './bus/ipc-messages.js';
import { nodeIpcEndpoint } from './bus/ipc-messages.js';
import { IpcRelay } from './bus/ipc-relay.js';
import type { Config } from './config.js';
import { announceFirstStart, REDIS_WITHOUT_SECRET } from './first-start.js';
import { createServices } from './services.js';
import { markServing } from './serving-marker.js';

/** How long a worker may take to drain before it is killed. */
const DRAIN_TIMEOUT_MS = 30_000;

/** Migrates (opening storage does, under the engine's lock) and runs the first start, before any worker serves. */
async function prepareDatabase(config: Config): Promise<void> {
  const storage = await openStorage(config);
  try {
    await announceFirstStart(createServices(config, storage), config);
  } finally {
    await storage.close();
  }
}

/** A worker that lived this long died of something else than a crash loop: restarted at once. */
const YOUNG_MS = 10_000;

export async function runPrimary(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel }).child({ role: 'primary' });
  if (config.redisUrl && !config.jwtSecret) log.warn(REDIS_WITHOUT_SECRET);
  await prepareDatabase(config);
  const unmark = config.databaseUrl ? () => undefined : markServing(config.dataDir);
  process.on('exit', unmark);

  // With Redis the workers use it like separate instances; without, they broadcast through here.
  const relay = config.redisUrl ? null : new IpcRelay();
  const detachOf = new Map<Worker, () => void>();
  const startedAt = new Map<Worker, number>();
  const listening = new Set<number>();
  let youngDeaths = 0;
  let stopping = false;

  const fork = (slot: number) => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    if (relay) {
      const endpoint = nodeIpcEndpoint<FromRelay, ToRelay>(worker);
      detachOf.set(
        worker,
        relay.attach(endpoint, (err) => log.warn({ err, slot }, 'answering a worker failed')),
      );
    }
    worker.on('listening', (address) => {
      if (listening.has(slot)) return;
      listening.add(slot);
      if (listening.size === config.workers) {
        const url = `http://${config.host}:${address.port}`;
        log.info({ workers: config.workers }, `all ${config.workers} workers listening at ${url}`);
      }
    });
    worker.on('exit', (code, signal) => {
      detachOf.get(worker)?.();
      detachOf.delete(worker);
      const lived = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (stopping) return;
      if (listening.size === 0) {
        // None ever served (a port in use, a database refusing workers): fail like one process would.
        log.error({ slot, code, signal }, 'a worker died before any served; stopping');
        void drain('worker start failed', 1);
        return;
      }
      // Workers dying young (a crash loop) are restarted after a delay that doubles, up to 30 s.
      const delay = lived >= YOUNG_MS ? 0 : Math.min(30_000, 250 * 2 ** youngDeaths);
      youngDeaths = lived >= YOUNG_MS ? 0 : youngDeaths + 1;
      log.error({ slot, pid: worker.process.pid, code, signal, restartInMs: delay }, 'worker died; restarting it');
      // Not unref'd: with every worker gone, this timer is what keeps the primary up.
      setTimeout(() => {
        if (!stopping) fork(slot);
      }, delay);
    });
  };
  for (let slot = 0; slot < config.workers; slot++) fork(slot);

  const drain = async (signal: string, failed = 0) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    log.info({ signal, workers: workers.length }, 'shutting down: draining the workers');
    const codes = await Promise.all(workers.map((worker) => drainWorker(worker)));
    const clean = codes.every((code) => code === 0);
    if (!clean) log.error({ codes }, 'a worker did not shut down cleanly');
    process.exit(clean ? failed : 1);
  };
  process.on('SIGTERM', () => void drain('SIGTERM'));
  process.on('SIGINT', () => void drain('SIGINT'));
}

/**
 * Asks one worker to drain with SIGTERM (its IPC channel stays open meanwhile, so its last
 * broadcasts still reach the others) and resolves with its exit code; killed after the timeout.
 */
function drainWorker(worker: Worker): Promise<number | null> {
  if (worker.isDead()) return Promise.resolve(worker.process.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), DRAIN_TIMEOUT_MS);
    worker.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Killed by the SIGTERM itself: a worker still starting, before it handles the signal.
      resolve(signal === 'SIGTERM' ? 0 : code);
    });
    worker.process.kill('SIGTERM');
  });
}
