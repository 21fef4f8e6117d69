/**
 * §16 webhook rows: a document PUT on a project with one webhook subscribed, in turns with the same
 * PUT on a project without (target ≥ 0.85), and the deliveries per second one webhook sends to a
 * local receiver (target ≥ 2,000 events/s per project). The projects and webhooks are made in the
 * bench's process on the service's database while the service runs; the receiver runs here too.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createdUser } from '../src/core/auth/auth-service.js';
import type { Storage } from '../src/core/ports.js';
import { newWebhookSecret } from '../src/core/webhooks/webhook-signing.js';
import { createServices } from '../src/services.js';
import { PostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { loadDatasets } from './datasets.js';
import type { Server } from './report.js';
import { type BenchProject, clientHeaders, type PreparedDatabase, type RunningService } from './service-process.js';
import { matches } from './settings.js';
import { httpRow, putInTurnsWithOpenProject, type SuiteContext } from './suites.js';

const WEBHOOK_PUT = 'document PUT with one webhook subscribed';
const WEBHOOK_RATE = 'webhook deliveries to a local receiver';
/** Events queued before the receiver answers, then timed as they are delivered. */
const BURST_EVENTS = 10_000;
const BATCH = 100;

/** A receiver answering 200 at once, or holding every request until `release` (to queue a backlog). */
class Receiver {
  private server: HttpServer | null = null;
  private held: (() => void)[] = [];
  private holding = false;
  /** When each 2xx was answered, by path. */
  readonly answered = new Map<string, number[]>();
  /** When each request not held was answered, by path (a held one may have timed out meanwhile). */
  readonly answeredAtOnce = new Map<string, number[]>();
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '/';
        const note = (map: Map<string, number[]>) => {
          const times = map.get(path) ?? [];
          times.push(performance.now());
          map.set(path, times);
        };
        const answer = () => {
          note(this.answered);
          res.writeHead(200).end();
        };
        if (this.holding) this.held.push(answer);
        else {
          note(this.answeredAtOnce);
          answer();
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The service's database, opened a second time from the bench's process. */
async function openStorage(prepared: PreparedDatabase): Promise<Storage> {
  const { env } = prepared;
  if (prepared.engine === 'postgres') {
    return PostgresStorage.open({
      connectionString: env.DATABASE_URL as string,
      ...(env.CDS_DATABASE_SCHEMA ? { schema: env.CDS_DATABASE_SCHEMA } : {}),
      poolSize: 2,
    });
  }
  return SqliteStorage.open(join(prepared.dataDir, 'cds.sqlite'));
}

/** A project with one player, `documents` documents as the rules projects have, and one webhook to `url`. */
async function subscribedProject(
  storage: Storage,
  env: Record<string, string>,
  name: string,
  documents: number,
  url: string,
) {
  const services = createServices(loadConfig(env), storage);
  try {
    const created = await services.accounts.createProject('bench', name);
    const user = createdUser(
      await storage.accounts.createUser(created.project_id, {
        username: 'webhook_player',
        passwordHash: null,
        nickname: 'Webhook',
        roles: ['player'],
      }),
    );
    const sizes = { documents, hubDescendants: 0, treeLeaves: 0, subtreeLeaves: 1, boardEntries: 0 };
    await loadDatasets(storage, created.project_id, 0, sizes);
    await storage.webhooks.create(
      created.project_id,
      { url, events: ['document.written'], description: null, secret: newWebhookSecret() },
      Date.now(),
    );
    const project: BenchProject = {
      projectId: created.project_id,
      clientId: created.client_id,
      clientSecret: created.client_secret,
      tokens: [(await services.auth.issueAccessToken(created.project_id, user.id)).access_token],
    };
    return project;
  } finally {
    await services.leaderboards.stop();
  }
}

/** The §16 webhook rows of one engine. */
export async function webhookRows(
  context: SuiteContext,
  engine: Server,
  service: RunningService,
  prepared: PreparedDatabase,
): Promise<void> {
  const { settings, result, log } = context;
  const wantPut = matches(settings, WEBHOOK_PUT);
  const wantRate = matches(settings, WEBHOOK_RATE);
  if (!wantPut && !wantRate) return;
  const receiver = new Receiver();
  await receiver.start();
  const storage = await openStorage(prepared);
  try {
    const documents = prepared.rules.documents;
    if (wantPut) {
      const subscribed = await subscribedProject(
        storage,
        prepared.env,
        'webhook put',
        documents,
        `${receiver.url}/put`,
      );
      const load = await putInTurnsWithOpenProject(context, service, prepared, WEBHOOK_PUT, subscribed);
      result.rows.push(httpRow(WEBHOOK_PUT, engine, load, 'document PUT (no webhook)'));
      const during = receiver.answered.get('/put')?.length ?? 0;
      // The deliveries the load left behind go out before the next row is measured.
      const caughtUp = await quiet(() => receiver.answered.get('/put')?.length ?? 0);
      log(
        `  ${WEBHOOK_PUT}: ${Math.round(load.requestsPerSecond)} req/s (${during} delivered during the load, ${caughtUp} in all after ${load.failure ? `FAILED ${load.failure}` : 'it'})`,
      );
    }
    if (wantRate) {
      const burst = await subscribedProject(storage, prepared.env, 'webhook burst', 0, `${receiver.url}/burst`);
      const rate = await deliveryRate(service, burst, receiver);
      result.rows.push({ workload: WEBHOOK_RATE, server: engine, rate, unit: 'deliveries/s', p50Ms: 0, p99Ms: 0 });
      log(`  ${WEBHOOK_RATE}: ${Math.round(rate)} events/s`);
    }
  } finally {
    await storage.close();
    await receiver.stop();
  }
}

/** Waits until `count` has not moved for 6 s (past a retry's 5 s; at most 3 min); answers it. */
async function quiet(count: () => number): Promise<number> {
  const deadline = Date.now() + 180_000;
  let last = -1;
  while (count() !== last && Date.now() < deadline) {
    last = count();
    await new Promise((resolve) => setTimeout(resolve, 6000));
  }
  return count();
}

/**
 * Queues `BURST_EVENTS` events behind a held first delivery (batches of 100 writes), lets the
 * receiver answer, and times the deliveries that follow, from the first to the last.
 */
async function deliveryRate(service: RunningService, project: BenchProject, receiver: Receiver): Promise<number> {
  receiver.hold();
  const headers = { ...clientHeaders(project), 'content-type': 'application/json' };
  for (let i = 0; i < BURST_EVENTS; i += BATCH) {
    const writes = Array.from({ length: BATCH }, (_, k) => ({
      op: 'put',
      path: `burst/d${i + k}`,
      data: { i: i + k },
    }));
    const res = await fetch(`${service.baseUrl}/documents/batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ writes }),
    });
    if (res.status !== 200) throw new Error(`batch write answered ${res.status}: ${await res.text()}`);
  }
  receiver.release();
  const deadline = Date.now() + 120_000;
  const times = () => receiver.answered.get('/burst') ?? [];
  while (times().length < BURST_EVENTS) {
    if (Date.now() > deadline) throw new Error(`only ${times().length} of ${BURST_EVENTS} webhook deliveries in 2 min`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // From the first delivery after the held one(s) to the last: the backlog as it is sent.
  const sent = receiver.answeredAtOnce.get('/burst') ?? [];
  const seconds = ((sent.at(-1) ?? 0) - (sent[0] ?? 0)) / 1000;
  return (sent.length - 1) / seconds;
}
