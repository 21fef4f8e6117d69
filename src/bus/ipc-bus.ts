import type { Bus } from '../core/bus.js';
import type { FromRelay, IpcEndpoint, ToRelay } from './ipc-messages.js';

type Listener = (message: string) => void;

interface ChannelState {
  listeners: Set<Listener>;
  /** Settles once the primary registered this worker on the channel. */
  subscribed: Promise<void>;
}

/** How long `ping` waits for the primary's answer (`/readyz`). */
const PING_TIMEOUT_MS = 2_000;

/**
 * The bus of one worker among several on one machine (CDS_WORKERS > 1, no Redis): every
 * message goes to the cluster primary over the worker's IPC channel, and the primary
 * (`IpcRelay`) relays it to each worker listening on the channel, the sender included, as Redis
 * does. The primary hears of a channel when a worker's first listener subscribes and of its end
 * when the last one stops, so a message crosses to the workers that want it only. The channel
 * is ordered and loses nothing while the primary lives (`onLoss` is never called; a worker whose
 * primary is gone shuts down).
 */
export class IpcBus implements Bus {
  private readonly channels = new Map<string, ChannelState>();
  private readonly waiting = new Map<number, () => void>();
  private readonly stopListening: () => void;
  private nextId = 1;
  private closed = false;

  constructor(private readonly primary: IpcEndpoint<ToRelay, FromRelay>) {
    this.stopListening = primary.listen((message) => this.received(message));
  }

  async publish(channel: string, message: string): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
    await this.primary.send({ cdsBus: 'pub', channel, message });
  }

  /** Never loses a message while the primary lives, so `onLoss` is never called. */
  async subscribe(channel: string, listener: Listener, _onLoss?: () => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('Bus is closed');
    // A wrapper per call, so the same function subscribed twice is also removed once per call.
    const entry: Listener = (message) => listener(message);
    let state = this.channels.get(channel);
    if (!state) {
      state = { listeners: new Set(), subscribed: this.request((id) => ({ cdsBus: 'sub', id, channel })) };
      this.channels.set(channel, state);
    }
    state.listeners.add(entry);
    try {
      await state.subscribed;
    } catch (error) {
      state.listeners.delete(entry);
      if (state.listeners.size === 0 && this.channels.get(channel) === state) this.channels.delete(channel);
      throw error;
    }
    return async () => {
      const current = this.channels.get(channel);
      if (!current?.listeners.delete(entry) || current.listeners.size > 0) return;
      this.channels.delete(channel);
      // Ordered after any later `sub` of the channel, so the primary's view stays right.
      if (!this.closed) await this.primary.send({ cdsBus: 'unsub', channel }).catch(() => undefined);
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('The cluster primary did not answer')), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.request((id) => ({ cdsBus: 'ping', id })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    this.stopListening();
    for (const done of this.waiting.values()) done();
    this.waiting.clear();
  }

  /** Sends a message the primary answers with `done`, and resolves on that answer. */
  private request(message: (id: number) => ToRelay): Promise<void> {
    const id = this.nextId++;
    const answered = new Promise<void>((resolve) => this.waiting.set(id, resolve));
    return this.primary.send(message(id)).then(
      () => answered,
      (error: unknown) => {
        this.waiting.delete(id);
        throw error;
      },
    );
  }

  private received(message: FromRelay): void {
    if (message.cdsBus === 'done') {
      const done = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      done?.();
      return;
    }
    const state = this.channels.get(message.channel);
    if (!state) return;
    for (const listener of [...state.listeners]) {
      try {
        listener(message.message);
      } catch {
        // One failing listener must not starve the others; listeners report their own errors.
      }
    }
  }
}
