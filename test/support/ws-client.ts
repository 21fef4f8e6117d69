/** A WebSocket test client for §4: collects the server's messages and keeps a copy of the tree. */
import WebSocket from 'ws';
import type { JsonValue } from '../../src/core/json.js';
import { segmentsOf } from '../../src/core/realtime/tree-path.js';
import { setValueAt } from '../../src/core/realtime/tree-value.js';

/** A message of the server, as parsed JSON. */
export interface ServerMessage {
  event: 'init' | 'update' | 'ack' | 'error' | 'resume' | 'cancel' | 'result';
  path?: string;
  value?: JsonValue;
  version?: number;
  id?: string | number;
  action?: string;
  message?: string;
  /** `error` answering a `call` (§16). */
  status?: number;
  /** `result` (§16). */
  result?: JsonValue;
}

/** How a handshake ended when the server refused it. */
export interface Refusal {
  status: number;
  body: unknown;
}

/** Opens a socket, or resolves to the HTTP refusal of the handshake. */
export function connect(url: string, headers: Record<string, string> = {}): Promise<TestSocket | Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(new TestSocket(ws)));
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: body ? JSON.parse(body) : null }));
    });
    ws.once('error', reject);
  });
}

/** Opens a socket that must be accepted. */
export async function open(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const result = await connect(url, headers);
  if (!(result instanceof TestSocket)) throw new Error(`handshake refused: ${JSON.stringify(result)}`);
  return result;
}

/** One client connection. */
export class TestSocket {
  readonly messages: ServerMessage[] = [];
  /** The client's single copy of the tree: every init and update applied in arrival order. */
  copy: JsonValue = null;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as ServerMessage;
      this.messages.push(message);
      if ((message.event === 'init' || message.event === 'update') && message.path !== undefined) {
        this.copy = setValueAt(this.copy, segmentsOf(message.path), message.value ?? null);
      }
      for (const listener of this.listeners) listener();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const listener of this.listeners) listener();
      });
    });
  }

  /** Sends a client message. */
  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Sends a message and waits for the reply carrying its id (`ack`, `init`, `resume`, `result` or `error`). */
  async request(
    message: Record<string, unknown> & { id: string | number },
    timeoutMs = 10_000,
  ): Promise<ServerMessage> {
    const from = this.messages.length;
    this.send(message);
    return this.waitFor((m) => m.id === message.id && m.event !== 'update', { from, timeoutMs });
  }

  /** Waits for the first message from index `from` matching `predicate`. */
  waitFor(
    predicate: (message: ServerMessage) => boolean,
    options: { from?: number; timeoutMs?: number } = {},
  ): Promise<ServerMessage> {
    const from = options.from ?? 0;
    return this.until(() => this.messages.slice(from).find(predicate), options.timeoutMs ?? 10_000);
  }

  /** Waits until `count` messages match. */
  async waitForCount(predicate: (message: ServerMessage) => boolean, count: number, timeoutMs = 20_000): Promise<void> {
    await this.until(() => (this.messages.filter(predicate).length >= count ? true : undefined), timeoutMs);
  }

  /** Messages of one event type. */
  events(event: ServerMessage['event']): ServerMessage[] {
    return this.messages.filter((m) => m.event === event);
  }

  /** Closes the socket and waits until it is closed. */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
    await this.closed;
  }

  private until<T>(check: () => T | undefined, timeoutMs: number): Promise<T> {
    const found = check();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms; last messages: ${JSON.stringify(this.messages.slice(-3))}`));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }
}
