/** The broadcast port shared by every instance (in-process, or Redis pub/sub). */
/**
 * Broadcasts between every instance sharing it (in-process, or Redis pub/sub when several
 * instances serve together), so messages are strings and the interface stays this small.
 * Delivery is at most once: a bus that was unreachable for a while says so through `onLoss`,
 * and listeners catch up from the database, which stays the source of truth.
 */
export interface Bus {
  /** Delivers `message` to every listener of `channel` on every instance, in publish order. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Listens on `channel` from when it resolves; the function it resolves to stops listening.
   * `onLoss` is called, once listening has resumed, whenever messages may have been missed.
   */
  subscribe(channel: string, listener: (message: string) => void, onLoss?: () => void): Promise<() => Promise<void>>;
  /** Resolves when the bus can deliver messages now; rejects otherwise (`/readyz`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
