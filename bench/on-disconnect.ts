/**
 * §17 rows (`--only disconnect`): idle sockets under the default heartbeat (10 s), their memory per
 * socket and the service's CPU at rest while they stay connected; and 1,000 clients that each
 * stored an on-disconnect write closing at once, timed from the closes until a watcher subscribed
 * to their parent path has seen all 1,000 writes (target ≤ 2 s). Clients run in the bench process.
 */
import type WebSocket from 'ws';
import { sleep } from './child.js';
import type { Server } from './report.js';
import type { RunningService } from './service-process.js';
import { openSocket, withTimeout } from './socket-helpers.js';
import type { SuiteContext } from './suites.js';

const IDLE_RSS = 'RSS per idle WebSocket, default heartbeat';
const IDLE_CPU = 'service CPU at rest per second, idle WebSockets, default heartbeat';
const CLOSING = 'on-disconnect writes of 1,000 clients closing at once, all committed';
const CLOSING_CLIENTS = 1_000;
const CONNECT_BATCH = 100;
const STEP_TIMEOUT_MS = 120_000;

/** Opens `count` sockets, `CONNECT_BATCH` at a time, each answered to `first(i)` (or none). */
async function openMany(
  url: string,
  headers: Record<string, string>,
  count: number,
  first: (i: number) => object | null,
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, count - i) }, (_, j) =>
      openSocket(url, headers, first(i + j)),
    );
    sockets.push(...(await withTimeout(Promise.all(batch), 'connecting sockets', STEP_TIMEOUT_MS)));
  }
  return sockets;
}

/** Memory per idle socket and CPU at rest over a few heartbeats. */
async function idleFigures(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  headers: Record<string, string>,
): Promise<void> {
  const { settings, result, log } = context;
  await sleep(settings.settleMs);
  const rssBefore = service.server.rss();
  const sockets = await openMany(service.wsUrl, headers, settings.idleSockets, () => null);
  try {
    await sleep(settings.settleMs);
    const rssAfter = service.server.rss();
    // Three heartbeats at the default 10 s (one when quick): pings, pongs and the checks between.
    const windowMs = settings.settleMs >= 2_000 ? 30_000 : 10_000;
    const cpuBefore = service.server.cpuSeconds();
    await sleep(windowMs);
    const cpuPerSecondMs = ((service.server.cpuSeconds() - cpuBefore) * 1000) / (windowMs / 1000);
    const count = `${sockets.length.toLocaleString('en-US')} sockets`;
    result.figures.push({
      name: IDLE_RSS,
      server: engine,
      value: (rssAfter - rssBefore) / sockets.length / 1024,
      unit: 'KiB',
      detail: `${count}, no subscription: RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} MiB`,
    });
    result.figures.push({
      name: IDLE_CPU,
      server: engine,
      value: cpuPerSecondMs,
      unit: 'ms',
      detail: `${count} over ${windowMs / 1000} s: CPU milliseconds per second (${(cpuPerSecondMs / 10).toFixed(2)} % of a core)`,
    });
    log(
      `  idle sockets: ${((rssAfter - rssBefore) / sockets.length / 1024).toFixed(1)} KiB each, ${cpuPerSecondMs.toFixed(1)} ms CPU/s`,
    );
  } finally {
    for (const socket of sockets) socket.terminate();
    await sleep(settings.settleMs);
  }
}

/** 1,000 clients with an on-disconnect write each close at once; a watcher times their writes. */
async function closingFigure(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  headers: Record<string, string>,
): Promise<void> {
  const { result, log } = context;
  const prefix = `left/${Date.now().toString(36)}`;
  const watcher = await openSocket(service.wsUrl, headers, { action: 'subscribe', path: prefix, id: 'watch' });
  const seen = new Set<string>();
  let lastSeen = 0;
  watcher.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { event?: string; path?: string };
    if (message.event !== 'update' || !message.path) return;
    seen.add(message.path);
    lastSeen = performance.now();
  });
  const clients = await openMany(service.wsUrl, headers, CLOSING_CLIENTS, (i) => ({
    action: 'on_disconnect',
    op: 'set',
    path: `${prefix}/c${i}`,
    value: { left: { '.sv': 'timestamp' } },
    id: i,
  }));
  try {
    const started = performance.now();
    for (const client of clients) client.close();
    const deadline = started + 30_000;
    while (seen.size < CLOSING_CLIENTS && performance.now() < deadline) await sleep(5);
    const seconds = (lastSeen - started) / 1000;
    result.figures.push({
      name: CLOSING,
      server: engine,
      value: seconds,
      unit: 's',
      detail: `${seen.size.toLocaleString('en-US')} of ${CLOSING_CLIENTS.toLocaleString('en-US')} writes seen by a subscriber, from the first close frame sent to the last update received (target ≤ 2 s)`,
    });
    log(`  ${CLOSING_CLIENTS} clients closing: ${seen.size} writes in ${seconds.toFixed(2)} s`);
  } finally {
    watcher.terminate();
    for (const client of clients) client.terminate();
  }
}

/** The §17 figures of `service`, its clients signed in with `headers`. */
export async function disconnectRows(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  headers: Record<string, string>,
): Promise<void> {
  await idleFigures(context, engine, service, headers);
  await closingFigure(context, engine, service, headers);
}
