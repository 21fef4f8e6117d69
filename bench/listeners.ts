/**
 * Document listener rows (§10), indicative: `npx tsx bench/listeners.ts` (SQLite, one process).
 *
 * 1. 1,000 listeners on one query, a writer changing matching documents in bursts: deliveries/s
 *    and write→delivery p50, beside the bare `ws` broadcast (bench/bare-broadcast.ts) to 1,000
 *    subscribers of one path with the same writes; also the `changes` messages counted (since
 *    issue 34 one per write; before, one per group commit).
 * 2. The cost of a write in a project with 10,000 listeners on 10,000 other documents, beside the
 *    same writes with no listener.
 *
 * Server and clients share this process (and the machine is shared), so the ratios mean more
 * than the absolute figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { type App, buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startBareBroadcast } from './bare-broadcast.js';

const LISTENERS = Number(process.env.LISTENERS ?? 1000);
const WRITES = Number(process.env.WRITES ?? 200);
const IDLE_LISTENERS = Number(process.env.IDLE_LISTENERS ?? 10_000);
const PER_SOCKET = 250;
// SEQUENTIAL=1: each write sent once the one before is answered, so each commits alone (one message per write whatever the code groups).
const SEQUENTIAL = process.env.SEQUENTIAL === '1';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** Opens `count` sockets; `onText` sees every message text of every socket. */
async function sockets(url: string, headers: Record<string, string>, count: number, onText: (text: string) => void) {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(url, { headers, perMessageDeflate: false });
          ws.on('message', (data) => onText(data.toString()));
          ws.once('open', () => resolve(ws));
          ws.once('error', reject);
        }),
    ),
  );
}

/** Waits until `done()` or the timeout. */
async function until(done: () => boolean, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Deliveries of one burst of writes: per second and latencies (ms) from the write's start. */
async function measure(expected: number, write: (i: number, t: number) => Promise<unknown>, count: () => number) {
  const start = performance.now();
  const before = count();
  if (SEQUENTIAL) for (let i = 0; i < WRITES; i++) await write(i, Date.now());
  else await Promise.all(Array.from({ length: WRITES }, (_, i) => write(i, Date.now())));
  await until(() => count() - before >= expected);
  return ((count() - before) / (performance.now() - start)) * 1000;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-listeners-'));
  const config = loadConfig({
    CDS_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    CDS_LOG_LEVEL: 'silent',
    CDS_DATA_DIR: dir,
    CDS_REALTIME_MAX_SUBSCRIPTIONS: String(PER_SOCKET + 6),
  });
  const app: App = await buildApp(config);
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.http.server.address() as AddressInfo;
  const created = await app.services.accounts.createProject('bench', 'listeners');
  const projectId = created.project_id;
  const user = await app.services.accounts.createUser(projectId, { username: 'bench', password: 'password-123' });
  const { access_token } = await app.services.accounts.issueToken(projectId, user.id);
  const headers = {
    'x-client-id': created.client_id,
    'x-client-secret': created.client_secret,
    authorization: `Bearer ${access_token}`,
  };
  const url = `ws://127.0.0.1:${port}/realtime/ws`;
  const documents = app.services.documents;

  // 1. Fan-out to 1,000 listeners of one query.
  const latencies: number[] = [];
  let delivered = 0;
  let frames = 0;
  const onListener = (text: string) => {
    if (!text.startsWith('{"event":"changes"')) return;
    frames++;
    // Writes of one group commit arrive as one message: count the documents it carries.
    delivered += text.split('"type":').length - 1;
    const t = /"t":(\d+)/.exec(text);
    if (t) latencies.push(Date.now() - Number(t[1]));
  };
  const listeners = await sockets(url, headers, LISTENERS, onListener);
  await Promise.all(
    listeners.map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('message', () => resolve());
          ws.send(JSON.stringify({ action: 'listen', id: 1, collection: 'lobby', where: ['open__exact:true'] }));
        }),
    ),
  );
  const serviceRate = await measure(
    LISTENERS * WRITES,
    (i, t) => documents.put(projectId, `lobby/room${i}`, { open: true, i, t }),
    () => delivered,
  );
  const serviceP50 = percentile(latencies, 50);
  const serviceFrames = frames;
  for (const ws of listeners) ws.terminate();

  const bare = await startBareBroadcast();
  const bareLatencies: number[] = [];
  let bareDelivered = 0;
  const bareClients = await sockets(bare.url, {}, LISTENERS, (text) => {
    if (!text.startsWith('{"event":"update"')) return;
    bareDelivered++;
    const t = /"t":(\d+)/.exec(text);
    if (t) bareLatencies.push(Date.now() - Number(t[1]));
  });
  for (const ws of bareClients) ws.send(JSON.stringify({ action: 'subscribe', path: 'lobby' }));
  const [writer] = await sockets(bare.url, {}, 1, () => undefined);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const bareRate = await measure(
    LISTENERS * WRITES,
    async (i, t) =>
      writer?.send(JSON.stringify({ action: 'set', path: `lobby/room${i}`, value: { open: true, i, t } })),
    () => bareDelivered,
  );
  const bareP50 = percentile(bareLatencies, 50);
  for (const ws of [...bareClients, writer]) ws?.terminate();
  await bare.close();

  // 2. A write's cost with 10,000 doc listeners on other documents.
  const timeWrites = async () => {
    const start = performance.now();
    for (let i = 0; i < 2000; i++) await documents.put(projectId, `scores/s${i % 100}`, { v: i });
    return (performance.now() - start) / 2000;
  };
  const without = await timeWrites();
  const idle = await sockets(url, headers, Math.ceil(IDLE_LISTENERS / PER_SOCKET), () => undefined);
  await Promise.all(
    idle.map(async (ws, s) => {
      let answered = 0;
      const all = new Promise<void>((resolve) =>
        ws.on('message', () => {
          answered++;
          if (answered === PER_SOCKET) resolve();
        }),
      );
      for (let i = 0; i < PER_SOCKET; i++) {
        ws.send(JSON.stringify({ action: 'listen', id: i, doc: `players/p${s * PER_SOCKET + i}` }));
      }
      await all;
    }),
  );
  const withListeners = await timeWrites();
  for (const ws of idle) ws.terminate();

  console.log(
    `listeners on one query: ${LISTENERS} listeners × ${WRITES} writes (SQLite, one process, shared machine)`,
  );
  console.log(`  service: ${serviceRate.toFixed(0)} deliveries/s, p50 ${serviceP50} ms`);
  console.log(
    `  ${serviceFrames} changes messages (${(serviceFrames / LISTENERS).toFixed(1)} per listener), ${((serviceRate * serviceFrames) / (LISTENERS * WRITES)).toFixed(0)} messages/s`,
  );
  console.log(`  bare ws: ${bareRate.toFixed(0)} deliveries/s, p50 ${bareP50} ms`);
  console.log(
    `  ratio ${(serviceRate / bareRate).toFixed(2)} of bare, p50 ${(serviceP50 / Math.max(bareP50, 1)).toFixed(1)}× bare`,
  );
  console.log(
    `write cost: ${without.toFixed(3)} ms without listeners, ${withListeners.toFixed(3)} ms with ${IDLE_LISTENERS} doc listeners on other documents (${(((withListeners - without) / without) * 100).toFixed(1)} %)`,
  );
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
