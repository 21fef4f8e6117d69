/**
 * After handlers (§16): each handler of each project is a consumer of the project's events, run
 * on one instance of the cluster at a time (the instance holding its lease, `CONSUMER_LEASE_MS`;
 * a killed instance's handlers are taken over once its lease runs out). A handler gets its
 * events in commit order, at least once: its position moves past an event only once the handler
 * returned; a throw is retried with backoff (1 s doubling to 5 min) and later events wait behind
 * it, until it succeeds or the event expires. Commits never wait for handlers.
 */
import type { Clock } from '../clock.js';
import type { AdminApi } from '../functions/admin-api.js';
import type { ChildLogger } from '../functions/before-hooks.js';
import type { FoundAfterHandler, FunctionRegistry } from '../functions/function-registry.js';
import { functionLog } from '../functions/functions-module.js';
import { TIMED_OUT, withinTime } from '../functions/time-limit.js';
import type { EventStore } from './event-store.js';
import type { OutboxEvent, StoredEvent } from './outbox-events.js';

/** How long a consumer's lease lasts: a dead instance's consumers resume elsewhere within it. */
export const CONSUMER_LEASE_MS = 20_000;
const READ_BATCH = 100;
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 5 * 60_000;

/** What the handlers need. */
export interface AfterHandlerDeps {
  registry: FunctionRegistry;
  events: EventStore;
  admin: (projectId: number) => AdminApi;
  clock: Clock;
  log: ChildLogger;
  /** This instance's name in leases. */
  owner: string;
  /** How long a handler may run before the attempt counts as failed. */
  timeoutMs: number;
  /** How long events are kept when a consumer has not taken them. */
  retentionMs: number;
  /** How often every project is looked at (events committed on other instances, retries); default 1 s. */
  pollMs?: number;
}

/** The delay before attempt `attempts + 1`: 1 s, doubling, at most 5 minutes. */
export const retryDelay = (attempts: number): number =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), LAST_RETRY_MS);

/** The collection of a document path: its second-to-last segment. */
const collectionOf = (path: string): string => {
  const segments = path.split('/');
  return segments[segments.length - 2] ?? '';
};

/** Whether the handler named `name` takes the event. */
export function handles(name: string, event: OutboxEvent): boolean {
  if (name === event.type) return true;
  if (!name.startsWith('document.written:') || event.type !== 'document.written') return false;
  const { path } = event.data as { path: string };
  return collectionOf(path) === name.slice('document.written:'.length);
}

/** Runs the after handlers of the loaded modules on this instance. */
export class AfterHandlers {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: AfterHandlerDeps) {}

  /** Starts looking for events now and every `pollMs`. */
  start(): void {
    if (!this.deps.registry.hasAfterHandlers || this.timer) return;
    this.timer = setInterval(() => this.nudge(), this.deps.pollMs ?? 1000);
    this.timer.unref();
    this.nudge();
  }

  /** Looks for new events soon (a commit of this instance recorded some). */
  nudge(): void {
    if (this.stopped || !this.deps.registry.hasAfterHandlers) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Stops and gives up this instance's leases, after the round under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    const { events, registry, owner } = this.deps;
    for (const projectId of await events.projects().catch(() => [])) {
      for (const handler of registry.after(projectId)) {
        await events.release(projectId, consumerOf(handler), owner).catch(() => undefined);
      }
    }
  }

  private async round(): Promise<void> {
    const { events, registry, clock, log } = this.deps;
    try {
      for (const projectId of await events.projects()) {
        for (const handler of registry.after(projectId)) {
          if (this.stopped) return;
          await this.drain(projectId, handler);
        }
        await events.trim(projectId, clock.now() - this.deps.retentionMs);
      }
    } catch (error) {
      log.child({ component: 'after-handlers' }).error({ err: error }, 'after handlers could not read events');
    }
  }

  /** Hands the handler the project's events after its position, while it holds the lease and succeeds. */
  private async drain(projectId: number, handler: FoundAfterHandler): Promise<void> {
    const { events, clock, owner } = this.deps;
    const consumer = consumerOf(handler);
    const lease = () => ({ owner, now: clock.now(), leaseMs: CONSUMER_LEASE_MS });
    let state = await events.claim(projectId, consumer, lease(), 'kept');
    if (!state || state.nextAttemptAt > clock.now()) return;
    let renewedAt = clock.now();
    for (;;) {
      const batch = await events.read(projectId, state.position, READ_BATCH);
      if (batch.length === 0) return;
      for (const stored of batch) {
        if (this.stopped) return;
        const failure = await this.deliver(projectId, handler, stored);
        if (failure !== null) {
          const attempts = state.attempts + 1;
          await events.fail(projectId, consumer, owner, {
            attempts,
            at: clock.now() + retryDelay(attempts),
            error: failure,
          });
          return;
        }
        await events.advance(projectId, consumer, owner, stored.seq);
        state = { position: stored.seq, attempts: 0, nextAttemptAt: 0 };
        if (clock.now() - renewedAt > CONSUMER_LEASE_MS / 2) {
          // Still ours? Another instance took over after a long handler: stop here.
          if (!(await events.claim(projectId, consumer, lease(), 'kept'))) return;
          renewedAt = clock.now();
        }
      }
    }
  }

  /** Runs the handler on one event if it takes it; null when it succeeded (or skipped it), else why it failed. */
  private async deliver(projectId: number, handler: FoundAfterHandler, stored: StoredEvent): Promise<string | null> {
    const event = JSON.parse(stored.json) as OutboxEvent;
    if (!handles(handler.name, event)) return null;
    const { clock, timeoutMs } = this.deps;
    const logger = this.deps.log.child({ after: handler.name, event_id: event.id, project_id: projectId });
    const ctx = {
      project_id: projectId,
      caller: null,
      request_id: event.id,
      log: functionLog(logger),
      now: () => clock.now(),
      admin: this.deps.admin(projectId),
    };
    try {
      const result = await withinTime(timeoutMs, () => handler.run(ctx, event));
      if (result !== TIMED_OUT) return null;
      logger.warn({ timeout_ms: timeoutMs }, 'after handler timed out; it will be retried');
      return 'timed out';
    } catch (error) {
      logger.error({ err: error }, 'after handler failed; it will be retried');
      return error instanceof Error ? error.message : String(error);
    }
  }
}

/** A handler's name as a consumer of its project's events. */
const consumerOf = (handler: FoundAfterHandler) => `after:${handler.name}`;
