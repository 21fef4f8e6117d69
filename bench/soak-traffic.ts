/**
 * The mixed traffic of `npm run soak`: document writes and reads, tree writes fanned out to 1,000
 * WebSocket subscribers, leaderboard submissions and reads, at fixed rates, spread over every
 * instance. Counts requests, errors (a non-2xx answer, a network failure, a socket that closed or
 * got an `error` event) and the updates subscribers received since the last `take()`.
 */
import WebSocket from 'ws';

/** Where the traffic goes, and as whom. */
export interface SoakTarget {
  baseUrls: string[];
  wsUrls: string[];
  clientId: string;
  clientSecret: string;
  /** One access token per player. */
  tokens: string[];
  board: string;
}

/** Operations per second of each kind, and how many sockets subscribe. */
export interface SoakRates {
  documents: number;
  treeWrites: number;
  submits: number;
  boardReads: number;
  subscribers: number;
}

/** What happened since the previous `take()`. */
export interface SoakCounts {
  requests: number;
  errors: number;
  updates: number;
  /** Requests not sent because 500 were already waiting (the service fell behind). */
  skipped: number;
  samples: string[];
}

const TICK_MS = 100;
const MAX_IN_FLIGHT = 500;
const TREE_PATH = 'soak/tree';

export class SoakTraffic {
  private counts: SoakCounts = { requests: 0, errors: 0, updates: 0, skipped: 0, samples: [] };
  private readonly sockets = new Set<WebSocket>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private n = 0;
  private stopping = false;

  constructor(
    private readonly target: SoakTarget,
    private readonly rates: SoakRates,
  ) {}

  /** Opens the subscribers (50 at a time), then starts the request loop. */
  async start(): Promise<void> {
    for (let i = 0; i < this.rates.subscribers; i += 50) {
      const batch = Math.min(50, this.rates.subscribers - i);
      await Promise.all(Array.from({ length: batch }, (_, j) => this.subscribe(i + j)));
    }
    const carry = { documents: 0, treeWrites: 0, submits: 0, boardReads: 0 };
    this.timer = setInterval(() => {
      for (const kind of Object.keys(carry) as (keyof typeof carry)[]) {
        carry[kind] += (this.rates[kind] * TICK_MS) / 1000;
        while (carry[kind] >= 1) {
          carry[kind] -= 1;
          this.fire(kind);
        }
      }
    }, TICK_MS);
  }

  /** The counts since the previous call. */
  take(): SoakCounts {
    const taken = this.counts;
    this.counts = { requests: 0, errors: 0, updates: 0, skipped: 0, samples: [] };
    return taken;
  }

  /** Stops sending, waits for answers in flight (at most 10 s) and closes the sockets. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    const deadline = Date.now() + 10_000;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const socket of this.sockets) socket.close();
  }

  private error(what: string): void {
    this.counts.errors += 1;
    if (this.counts.samples.length < 5) this.counts.samples.push(what);
  }

  private subscribe(i: number): Promise<void> {
    const { target } = this;
    const url = target.wsUrls[i % target.wsUrls.length] as string;
    const socket = new WebSocket(url, {
      headers: {
        'x-client-id': target.clientId,
        'x-client-secret': target.clientSecret,
        authorization: `Bearer ${target.tokens[i % target.tokens.length]}`,
      },
    });
    this.sockets.add(socket);
    return new Promise((resolve) => {
      socket.on('open', () => socket.send(JSON.stringify({ action: 'subscribe', path: TREE_PATH, id: i })));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { event: string; message?: string };
        if (message.event === 'update') this.counts.updates += 1;
        else if (message.event === 'init') resolve();
        else if (message.event === 'error') this.error(`socket error: ${message.message}`);
      });
      socket.on('error', (error) => this.error(`socket: ${error.message}`));
      socket.on('close', (code) => {
        this.sockets.delete(socket);
        resolve();
        if (this.stopping) return;
        this.error(`socket closed ${code}`);
        setTimeout(() => void this.subscribe(i), 1000);
      });
    });
  }

  private fire(kind: 'documents' | 'treeWrites' | 'submits' | 'boardReads'): void {
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.counts.skipped += 1;
      return;
    }
    this.n += 1;
    const n = this.n;
    const user = n % this.target.tokens.length;
    const [method, path, body] = this.request(kind, n, user);
    void this.send(method, path, body, user);
  }

  /** The request of operation `n` of `kind`, as player `user`. */
  private request(kind: string, n: number, user: number): [string, string, unknown] {
    const doc = `/documents/docs/soak/u${user}/items/d${n % 50}`;
    switch (kind) {
      case 'treeWrites':
        return ['PUT', `/realtime/db/${TREE_PATH}/k${n % 100}`, { value: { n, at: Date.now() } }];
      case 'submits':
        return ['POST', `/leaderboards/${this.target.board}/stats`, { value: n % 10_000 }];
      case 'boardReads':
        return ['GET', `/leaderboards/${this.target.board}/bundle?include=me,entries&limit=20`, undefined];
    }
    // Documents: puts and reads of a bounded set of paths, some patches, queries and deletes.
    switch (n % 10) {
      case 0:
      case 1:
      case 2:
      case 3:
        return ['PUT', doc, { data: { n, at: Date.now(), text: 'x'.repeat(200) } }];
      case 4:
        return ['PATCH', doc, { data: { seen: n } }];
      case 5:
        return ['GET', `/documents/query/items?parent_path=soak/u${user}&where=n__gte:${n - 500}&limit=20`, undefined];
      case 6:
        return ['DELETE', `/documents/docs/soak/u${user}/items/d${(n + 25) % 50}`, undefined];
      default:
        return ['GET', doc, undefined];
    }
  }

  private async send(method: string, path: string, body: unknown, user: number): Promise<void> {
    const { target } = this;
    const base = target.baseUrls[this.n % target.baseUrls.length] as string;
    this.inFlight += 1;
    this.counts.requests += 1;
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          'x-client-id': target.clientId,
          'x-client-secret': target.clientSecret,
          authorization: `Bearer ${target.tokens[user]}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await res.arrayBuffer();
      // A GET, PATCH or DELETE of a document deleted or not yet written is a 404 the mix expects.
      const expected = res.ok || (res.status === 404 && path.startsWith('/documents/docs/'));
      if (!expected) this.error(`${method} ${path.split('?')[0]}: ${res.status}`);
    } catch (error) {
      this.error(`${method} ${path.split('?')[0]}: ${(error as Error).message}`);
    } finally {
      this.inFlight -= 1;
    }
  }
}
