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

/**
 * The opening of a bus message published by the instance `origin` (`undefined`: none named), for
 * messages that start with their origin so that the publisher's own listeners skip them unparsed.
 */
export function originMark(origin: string | undefined): string {
  return origin === undefined ? '{' : `{"origin":${JSON.stringify(origin)},`;
}

/** Whether a bus message was published by the instance `origin` (it starts with its mark: no parsing). */
export function isOwnMessage(message: string, origin: string): boolean {
  return message.startsWith(originMark(origin));
}

/** Who is told of a project's commits made by this instance, right after their COMMIT (no bus round trip). */
export class LocalCommitListeners<C> {
  private readonly listeners = new Set<(projectId: number, commits: readonly C[]) => void>();

  /** Adds `listener`; returns a function that removes it. */
  add(listener: (projectId: number, commits: readonly C[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener; one that throws is reported to `onError` and the others are still told. */
  tell(projectId: number, commits: readonly C[], onError?: (error: unknown) => void): void {
    for (const listener of this.listeners) {
      try {
        listener(projectId, commits);
      } catch (error) {
        onError?.(error);
      }
    }
  }
}

/** A listening on one bus channel, started at most once and stopped by `close` (a cache's or a sync's notices). */
export class ChannelListening {
  private stop: (() => Promise<void>) | null = null;

  constructor(
    private readonly channel: string,
    private readonly listener: (message: string) => void,
    private readonly onLoss: () => void,
  ) {}

  /** Starts listening on `bus` (again only after `close`). */
  async listen(bus: Bus): Promise<void> {
    this.stop ??= await bus.subscribe(this.channel, this.listener, this.onLoss);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    const stop = this.stop;
    this.stop = null;
    await stop?.();
  }
}

/** A commit as a feed orders it: versions of a project are consecutive. */
export interface VersionedCommit {
  version: number;
}

/**
 * Where a feed of one project's commits (the tree's, the documents') hears of them on the bus and
 * reads the ones it missed; the services hand one out per project (`commitSource`).
 */
export interface CommitSource<C extends VersionedCommit> {
  /** The bus channel the commits are announced on. */
  readonly channel: string;
  /** This instance's mark on its own messages: its commits reach the feed directly (`ownCommits`). */
  readonly origin: string;
  /** The commits of the feed's project a bus message carries, in order; null when it is not one. */
  decode(message: string): C[] | null;
  currentVersion(): Promise<number>;
  /** The commits after `version` from the change log; null when the log no longer covers it. */
  changesSince(version: number): Promise<{ version: number; commits: C[] } | null>;
}
