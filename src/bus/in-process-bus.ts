import type { Bus } from '../core/bus.js';

type Listener = (message: string) => void;

/**
 * The bus of a single instance: messages reach this process's listeners only. Delivery is
 * asynchronous (a microtask) and in publish order, like a remote bus, so publishers never run
 * listeners' work inside their own call.
 */
export class InProcessBus implements Bus {
  private readonly channels = new Map<string, Set<Listener>>();
  private closed = false;

  async publish(channel: string, message: string): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
    const listeners = this.channels.get(channel);
    if (!listeners || listeners.size === 0) return;
    const targets = [...listeners];
    queueMicrotask(() => {
      for (const listener of targets) {
        try {
          listener(message);
        } catch {
          // One failing listener must not starve the others; listeners report their own errors.
        }
      }
    });
  }

  /** Never loses a message, so `onLoss` is never called. */
  async subscribe(channel: string, listener: Listener, _onLoss?: () => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('Bus is closed');
    // A wrapper per call, so the same function subscribed twice is also removed once per call.
    const entry: Listener = (message) => listener(message);
    let listeners = this.channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.channels.set(channel, listeners);
    }
    listeners.add(entry);
    return async () => {
      const current = this.channels.get(channel);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.channels.delete(channel);
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('Bus is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
  }
}
