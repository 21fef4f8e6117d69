/**
 * The outbox port (§16): the events the commits recorded, read in commit order per project, and
 * each consumer's place in them (its position, its lease, its retry state). The commits append
 * events inside their own transactions (each engine's commit code); this port reads and keeps.
 */
import type { StoredEvent } from './outbox-events.js';

/** A consumer's place in a project's events, as it stands once claimed. */
export interface ConsumerState {
  /** The `seq` of the last event it took (0: none). */
  position: number;
  /** Failed attempts at the event after `position`. */
  attempts: number;
  /** When it may try again (epoch ms; 0: now). */
  nextAttemptAt: number;
}

/**
 * Where a new consumer starts: every event still kept, or only those committed after it;
 * `existing`: the consumer was made elsewhere (a webhook's, with the webhook) and is not made again.
 */
export type ConsumerStart = 'kept' | 'new' | 'existing';

/** A claim of a consumer for a while: who holds it, until when. */
export interface Lease {
  owner: string;
  now: number;
  leaseMs: number;
}

/** A project's last event: the `seq` its next one follows. */
export interface EventHead {
  projectId: number;
  seq: number;
}

export interface EventStore {
  /** The projects whose commits recorded events. */
  projects(): Promise<number[]>;
  /** The projects whose commits recorded events, each with its last `seq`. */
  heads(): Promise<EventHead[]>;
  /** Up to `limit` of the project's events after `seq`, in order. */
  read(projectId: number, afterSeq: number, limit: number): Promise<StoredEvent[]>;
  /**
   * Takes (or keeps) the consumer's lease when it is free, expired or already `lease.owner`'s,
   * making the consumer at `start` if it is new; null when another owner holds it (or, for
   * `existing`, when there is no such consumer).
   */
  claim(projectId: number, consumer: string, lease: Lease, start: ConsumerStart): Promise<ConsumerState | null>;
  /** Moves the consumer past `seq` and clears its failures, if `owner` still holds it. */
  advance(projectId: number, consumer: string, owner: string, seq: number): Promise<void>;
  /** Records a failed attempt and when to try again, if `owner` still holds it. */
  fail(
    projectId: number,
    consumer: string,
    owner: string,
    retry: { attempts: number; at: number; error: string },
  ): Promise<void>;
  /** Lets the consumer try its next event now rather than when its backoff ends (a retry asked for). */
  wake(projectId: number, consumer: string): Promise<void>;
  /** Gives the lease up (a stopping instance), if `owner` holds it. */
  release(projectId: number, consumer: string, owner: string): Promise<void>;
  /**
   * Deletes the events every consumer of the project took, and those created before `expiredBefore`
   * (epoch ms) whoever has not taken them.
   */
  trim(projectId: number, expiredBefore: number): Promise<void>;
}
