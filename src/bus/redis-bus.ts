import { Redis, type RedisOptions } from 'ioredis';
import type { Bus } from '../core/bus.js';

type Listener = (message: string) => void;

interface Subscriber {
  listener: Listener;
  onLoss: (() => void) | undefined;
}

interface ChannelState {
  subscribers: Set<Subscriber>;
  /** Settles once Redis confirmed the SUBSCRIBE (or it failed, and the next reconnection will do it). */
  subscribed: Promise<void>;
}

/** Settings of the Redis bus. */
export interface RedisBusOptions {
  /** `redis://…` or `rediss://…` (REDIS_URL). */
  url: string;
  /** CDS_REDIS_PREFIX: the service's channel `tree.7` is `<prefix>:tree.7` in Redis. */
  prefix: string;
  /** How long `open` waits for Redis before giving up (default 10 s). */
  connectTimeoutMs?: number;
  /** Told when a connection to Redis fails (once per outage, not once per retry). */
  onError?: (error: unknown) => void;
  /** Told when both connections are back after an outage. */
  onRecovered?: () => void;
}

// Reconnect fast at first, then once a second: an outage costs messages, not the process.
const retryStrategy = (attempt: number): number => Math.min(50 * 2 ** Math.min(attempt, 5), 1000);

/**
 * The bus of several instances: Redis pub/sub, with one connection to publish and one to
 * listen (a subscribed connection can do nothing else). Every channel starts with the prefix,
 * so deployments sharing one Redis never hear each other. Nothing waits for an unreachable
 * Redis: publishing fails at once (the write stands; listeners catch up from the database) and
 * subscribing registers the listener, to be subscribed on reconnection. After a reconnection
 * every channel is subscribed again and then each listener's `onLoss` runs.
 */
export class RedisBus implements Bus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channels = new Map<string, ChannelState>();
  private readonly options: RedisBusOptions;
  private connectedOnce = false;
  private failing = false;
  private closed = false;

  private constructor(options: RedisBusOptions) {
    this.options = options;
    const common: RedisOptions = {
      // Commands fail at once while disconnected instead of queueing behind the outage.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Resubscribed by `resubscribe`, which knows when it is done and then reports the loss.
      autoResubscribe: false,
      retryStrategy,
      connectTimeout: options.connectTimeoutMs ?? 10_000,
    };
    this.publisher = new Redis(options.url, { ...common, commandTimeout: 2_000, connectionName: 'cds-publish' });
    this.subscriber = new Redis(options.url, { ...common, connectionName: 'cds-subscribe' });
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error: unknown) => this.failed(error));
      connection.on('ready', () => this.recovered());
    }
    this.subscriber.on('ready', () => void this.resubscribe());
    this.subscriber.on('message', (channel: string, message: string) => this.dispatch(channel, message));
  }

  /** Connects both connections; rejects (and closes) when Redis does not answer in time. */
  static async open(options: RedisBusOptions): Promise<RedisBus> {
    const bus = new RedisBus(options);
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    try {
      await Promise.all([bus.publisher, bus.subscriber].map((connection) => untilReady(connection, timeoutMs)));
    } catch (error) {
      await bus.close();
      throw new Error(`Redis not reachable at ${redactUrl(options.url)}: ${(error as Error).message}`);
    }
    return bus;
  }

  /** The Redis name of a channel of the service. */
  channelName(channel: string): string {
    return `${this.options.prefix}:${channel}`;
  }

  async publish(channel: string, message: string): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
    await this.publisher.publish(this.channelName(channel), message);
  }

  async subscribe(channel: string, listener: Listener, onLoss?: () => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('Bus is closed');
    const name = this.channelName(channel);
    const subscriber: Subscriber = { listener, onLoss };
    let state = this.channels.get(name);
    if (!state) {
      state = { subscribers: new Set(), subscribed: this.subscribeInRedis(name) };
      this.channels.set(name, state);
    }
    state.subscribers.add(subscriber);
    await state.subscribed;
    return async () => {
      const current = this.channels.get(name);
      if (!current?.subscribers.delete(subscriber) || current.subscribers.size > 0) return;
      this.channels.delete(name);
      if (this.subscriber.status === 'ready') await this.subscriber.unsubscribe(name).catch(() => undefined);
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
    if (this.subscriber.status !== 'ready') throw new Error(`Redis subscriber connection is ${this.subscriber.status}`);
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    await Promise.all(
      [this.publisher, this.subscriber].map(async (connection) => {
        if (connection.status === 'ready') await connection.quit().catch(() => undefined);
        connection.disconnect();
      }),
    );
  }

  /** Subscribes one channel now when connected; otherwise the next `ready` does it. */
  private async subscribeInRedis(name: string): Promise<void> {
    if (this.subscriber.status !== 'ready') return;
    // A failure here means the connection dropped: `resubscribe` runs on reconnection.
    await this.subscriber.subscribe(name).catch(() => undefined);
  }

  /** On every (re)connection: subscribes every channel again, then tells listeners what they may have missed. */
  private async resubscribe(): Promise<void> {
    const names = [...this.channels.keys()];
    if (names.length > 0) {
      try {
        await this.subscriber.subscribe(...names);
      } catch {
        return;
      }
    }
    const first = !this.connectedOnce;
    this.connectedOnce = true;
    if (first) return;
    for (const name of names) {
      for (const subscriber of this.channels.get(name)?.subscribers ?? []) {
        try {
          subscriber.onLoss?.();
        } catch {
          // One failing listener must not keep the others from catching up.
        }
      }
    }
  }

  private dispatch(name: string, message: string): void {
    const state = this.channels.get(name);
    if (!state) return;
    for (const subscriber of [...state.subscribers]) {
      try {
        subscriber.listener(message);
      } catch {
        // Listeners report their own errors; the others must still receive the message.
      }
    }
  }

  private failed(error: unknown): void {
    if (this.failing || this.closed) return;
    this.failing = true;
    this.options.onError?.(error);
  }

  private recovered(): void {
    if (!this.failing || this.publisher.status !== 'ready' || this.subscriber.status !== 'ready') return;
    this.failing = false;
    this.options.onRecovered?.();
  }
}

function untilReady(connection: Redis, timeoutMs: number): Promise<void> {
  if (connection.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError: unknown = new Error('timed out');
    const onError = (error: unknown) => {
      lastError = error;
    };
    const onReady = () => {
      clearTimeout(timer);
      connection.off('error', onError);
      resolve();
    };
    const timer = setTimeout(() => {
      connection.off('ready', onReady);
      connection.off('error', onError);
      reject(lastError instanceof Error ? lastError : new Error(String(lastError)));
    }, timeoutMs);
    connection.once('ready', onReady);
    connection.on('error', onError);
  });
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'REDIS_URL';
  }
}
