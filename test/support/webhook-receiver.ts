/**
 * A real HTTP receiver of webhook deliveries on 127.0.0.1 (§16 tests and the bench): it records
 * every request (headers and body) and answers what `answer` says, 200 by default.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  /** What the receiver answered. */
  status: number;
}

export class WebhookReceiver {
  readonly requests: Received[] = [];
  /** The status to answer a request with; default 200. */
  answer: (request: Omit<Received, 'status'>) => number = () => 200;
  private server: Server | null = null;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const header = (name: string) => String(req.headers[name] ?? '');
        const got = {
          path: req.url ?? '/',
          id: header('webhook-id'),
          timestamp: header('webhook-timestamp'),
          signature: header('webhook-signature'),
          contentType: header('content-type'),
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const status = this.answer(got);
        this.requests.push({ ...got, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The URL of `path` on this receiver. */
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The requests it answered 2xx, by path. */
  delivered(path = '/hook'): Received[] {
    return this.requests.filter((r) => r.path === path && r.status >= 200 && r.status < 300);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Whether a request's `webhook-signature` is the Standard Webhooks v1 signature of its id, timestamp and body. */
export function signatureValid(secret: string, request: Received): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${request.id}.${request.timestamp}.${request.body}`)
    .digest('base64');
  return request.signature.split(' ').includes(`v1,${expected}`);
}

/** Waits until `check` holds. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
