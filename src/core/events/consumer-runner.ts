/**
 * The one loop of the outbox's consumers (§16): after handlers and webhooks alike. Each consumer of
 * each project runs on one instance of the cluster at a time (the instance holding its lease,
 * `leaseMs`; a killed instance's consumers are taken over once its lease runs out), one
 * event at a time, in commit order, at least once: its position moves past an event only once the
 * consumer handled it; a failure is recorded with the consumer's own retry time and later events
 * wait behind it. Commits never wait for consumers; they nudge them.
 */
import type { Clock } from '../clock.js';
import type { ChildLogger } from '../functions/before-hooks.js';
import type { ConsumerStart, EventStore } from './event-store.js';
import type { StoredEvent } from './outbox-events.js';

/** How long a consumer's lease lasts by default: a dead instance's consumers resume elsewhere within it. */
export const CONSUMER_LEASE_MS = 20_000;
const READ_BATCH = 100;

/** How one attempt at an event ended: done (or skipped), or failed and to be tried again at `retryAt`. */
export type Handled = { ok: true } | { ok: false; error: string; retryAt: number };

/** One consumer of one project's events. */
export interface EventConsumer {
  /** Its name in the store (`after:<handler>`, `webhook:<id>`). */
  readonly name: string;
  /** Where it starts when it has no place yet; `existing`: it has one already or is gone. */
  readonly start: ConsumerStart;
  /** Its position moves after each event (true), or after each batch read (at most a batch again after a crash). */
  readonly advanceEach: boolean;
  /** Runs before its events are looked at, while it holds its lease. */
  beforeEvents?(): Promise<void>;
  /** Attempt `attempt` (1 for the first) at one event. */
  handle(event: StoredEvent, attempt: number): Promise<Handled>;
  /** Stores what the events handled so far left to store, before the position moves past them. */
  settle?(): Promise<void>;
}

/** Where a project's consumers come from (the loaded after handlers, the project's webhooks). */
export interface ConsumerSource {
  consumers(projectId: number): Promise<readonly EventConsumer[]>;
}

/** Where the runner reports how many events each consumer has still to take (`null`: the consumer is gone). */
export interface ConsumerObserver {
  pending(consumer: string, events: number | null): void;
}

export interface ConsumerRunnerDeps {
  events: EventStore;
  sources: readonly ConsumerSource[];
  clock: Clock;
  log: ChildLogger;
  /** This instance's name in leases. */
  owner: string;
  /** How long events are kept when a consumer has not taken them. */
  retentionMs: number;
  /** How often every project is looked at (events committed on other instances, new consumers); default 1 s. */
  pollMs?: number;
  /** How long a consumer's lease lasts (`CDS_EVENT_LEASE_MS`); default `CONSUMER_LEASE_MS`. */
  leaseMs?: number;
  observer?: ConsumerObserver;
}

interface Task {
  again: boolean;
  done: Promise<void>;
}

/** Runs every consumer of every project that records events, on this instance. */
export class ConsumerRunner {
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private stopped = false;
  private readonly known = new Map<number, readonly EventConsumer[]>();
  private readonly tasks = new Map<string, Task>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly heads = new Map<number, number>();
  /** The position of each consumer this instance ran, by `project/name`, for the pending gauge. */
  private readonly positions = new Map<string, { projectId: number; name: string; position: number }>();

  constructor(private readonly deps: ConsumerRunnerDeps) {}

  /** Starts looking for events now and every `pollMs`. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.poll(), this.deps.pollMs ?? 1000);
    this.timer.unref();
    this.poll();
  }

  /** Looks at every project again soon (a consumer was added or asked to retry on this instance), once started. */
  poll(): void {
    // Not started (the `cds` command's services): consumers run on the serving instances only.
    if (this.stopped || !this.timer) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.round().finally(() => {
      this.polling = null;
      if (this.pollAgain) {
        this.pollAgain = false;
        this.poll();
      }
    });
  }

  /** Hands a project's new events to its consumers soon (a commit of this instance recorded some). */
  nudge(projectId: number): void {
    for (const consumer of this.known.get(projectId) ?? []) this.kick(projectId, consumer.name);
  }

  /**
   * Resolves once every consumer has been handed the events committed before the call, as far as it
   * can take them now (one waiting to retry a failed event is not waited for): for tests.
   */
  async settled(): Promise<void> {
    await this.polling;
    await this.round();
    while (this.tasks.size > 0) await Promise.all([...this.tasks.values()].map((task) => task.done));
  }

  /** Stops and gives up this instance's leases, after the work under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const timer of this.retries.values()) clearTimeout(timer);
    await this.polling;
    await Promise.all([...this.tasks.values()].map((task) => task.done));
    const { events, owner } = this.deps;
    for (const [projectId, consumers] of this.known) {
      for (const consumer of consumers) await events.release(projectId, consumer.name, owner).catch(() => undefined);
    }
  }

  private async round(): Promise<void> {
    const { events, sources, clock, log } = this.deps;
    try {
      for (const { projectId, seq } of await events.heads()) {
        this.heads.set(projectId, Math.max(seq, this.heads.get(projectId) ?? 0));
        const consumers = (await Promise.all(sources.map((source) => source.consumers(projectId)))).flat();
        this.forgetGone(projectId, consumers);
        this.known.set(projectId, consumers);
        for (const consumer of consumers) this.kick(projectId, consumer.name);
        await events.trim(projectId, clock.now() - this.deps.retentionMs);
      }
      this.report();
    } catch (error) {
      log.child({ component: 'event-consumers' }).error({ err: error }, 'event consumers could not read events');
    }
  }

  /** Runs the consumer's drain now, or once more after the one under way. */
  private kick(projectId: number, name: string): void {
    if (this.stopped) return;
    const key = `${projectId}/${name}`;
    const running = this.tasks.get(key);
    if (running) {
      running.again = true;
      return;
    }
    const task: Task = { again: true, done: Promise.resolve() };
    this.tasks.set(key, task);
    task.done = (async () => {
      while (task.again && !this.stopped) {
        task.again = false;
        const consumer = this.known.get(projectId)?.find((known) => known.name === name);
        if (!consumer) break;
        await this.drain(projectId, consumer).catch((error: unknown) => {
          this.deps.log.child({ consumer: name, project_id: projectId }).error({ err: error }, 'event consumer failed');
        });
      }
      this.tasks.delete(key);
    })();
  }

  /** Hands the consumer the project's events after its position, while it holds the lease and succeeds. */
  private async drain(projectId: number, consumer: EventConsumer): Promise<void> {
    const { events, clock, owner } = this.deps;
    const leaseMs = this.deps.leaseMs ?? CONSUMER_LEASE_MS;
    const lease = () => ({ owner, now: clock.now(), leaseMs });
    const state = await events.claim(projectId, consumer.name, lease(), consumer.start);
    if (!state) return;
    let advanced = state.position;
    this.track(projectId, consumer.name, advanced);
    if (state.nextAttemptAt > clock.now()) return this.retryAt(projectId, consumer.name, state.nextAttemptAt);
    await consumer.beforeEvents?.();
    let taken = advanced;
    let attempts = state.attempts;
    let renewedAt = clock.now();
    const settle = async () => {
      await consumer.settle?.();
      if (taken === advanced) return;
      await events.advance(projectId, consumer.name, owner, taken);
      advanced = taken;
      this.track(projectId, consumer.name, advanced);
    };
    for (;;) {
      const batch = await events.read(projectId, taken, READ_BATCH);
      if (batch.length === 0) return settle();
      this.heads.set(projectId, Math.max(this.heads.get(projectId) ?? 0, batch.at(-1)?.seq ?? 0));
      for (const stored of batch) {
        if (this.stopped) return settle();
        const handled = await consumer.handle(stored, attempts + 1);
        if (!handled.ok) {
          await settle();
          await events.fail(projectId, consumer.name, owner, {
            attempts: attempts + 1,
            at: handled.retryAt,
            error: handled.error,
          });
          return this.retryAt(projectId, consumer.name, handled.retryAt);
        }
        taken = stored.seq;
        attempts = 0;
        if (consumer.advanceEach) await settle();
        if (clock.now() - renewedAt > leaseMs / 2) {
          await settle();
          // Still ours? Another instance took over after a long attempt: stop here.
          if (!(await events.claim(projectId, consumer.name, lease(), consumer.start))) return;
          renewedAt = clock.now();
        }
      }
      await settle();
    }
  }

  /** Kicks the consumer again when its next attempt is due. */
  private retryAt(projectId: number, name: string, at: number): void {
    const key = `${projectId}/${name}`;
    clearTimeout(this.retries.get(key));
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.retries.delete(key);
        this.kick(projectId, name);
      },
      Math.max(0, at - this.deps.clock.now()),
    );
    timer.unref();
    this.retries.set(key, timer);
  }

  private track(projectId: number, name: string, position: number): void {
    this.positions.set(`${projectId}/${name}`, { projectId, name, position });
    this.report();
  }

  private forgetGone(projectId: number, consumers: readonly EventConsumer[]): void {
    const names = new Set(consumers.map((consumer) => consumer.name));
    for (const [key, entry] of this.positions) {
      if (entry.projectId !== projectId || names.has(entry.name)) continue;
      this.positions.delete(key);
      this.deps.observer?.pending(entry.name, null);
    }
  }

  /** Tells the observer each consumer's events still to take: its project's last `seq` less its position. */
  private report(): void {
    const observer = this.deps.observer;
    if (!observer) return;
    const totals = new Map<string, number>();
    for (const { projectId, name, position } of this.positions.values()) {
      const pending = Math.max(0, (this.heads.get(projectId) ?? 0) - position);
      totals.set(name, (totals.get(name) ?? 0) + pending);
    }
    for (const [name, pending] of totals) observer.pending(name, pending);
  }
}
