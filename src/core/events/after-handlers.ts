/**
 * After handlers (§16) as consumers of the outbox (`ConsumerRunner`): each handler of each project
 * is the consumer `after:<name>`, starting at every event still kept. A handler gets its events in
 * commit order, at least once: its position moves past each event once the handler returned; a
 * throw (or a run past the time limit) is retried with backoff (1 s doubling to 5 min) and later
 * events wait behind it, until it succeeds or the event expires.
 */
import type { Clock } from '../clock.js';
import type { AdminApi } from '../functions/admin-api.js';
import type { ChildLogger } from '../functions/before-hooks.js';
import type { FoundAfterHandler, FunctionRegistry } from '../functions/function-registry.js';
import { functionLog } from '../functions/functions-module.js';
import { TIMED_OUT, withinTime } from '../functions/time-limit.js';
import type { ConsumerSource, EventConsumer, Handled } from './consumer-runner.js';
import type { OutboxEvent, StoredEvent } from './outbox-events.js';

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 5 * 60_000;

/** What the handlers need. */
export interface AfterHandlerDeps {
  registry: FunctionRegistry;
  admin: (projectId: number) => AdminApi;
  clock: Clock;
  log: ChildLogger;
  /** How long a handler may run before the attempt counts as failed. */
  timeoutMs: number;
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

/** The after handlers of the loaded modules, as each project's consumers. */
export class AfterHandlers implements ConsumerSource {
  constructor(private readonly deps: AfterHandlerDeps) {}

  async consumers(projectId: number): Promise<readonly EventConsumer[]> {
    return this.deps.registry.after(projectId).map((handler) => ({
      name: `after:${handler.name}`,
      start: 'kept',
      advanceEach: true,
      handle: (stored: StoredEvent, attempt: number) => this.run(projectId, handler, stored, attempt),
    }));
  }

  /** Runs the handler on one event if it takes it. */
  private async run(
    projectId: number,
    handler: FoundAfterHandler,
    stored: StoredEvent,
    attempt: number,
  ): Promise<Handled> {
    const event = JSON.parse(stored.json) as OutboxEvent;
    if (!handles(handler.name, event)) return { ok: true };
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
    const failed = (error: string): Handled => ({ ok: false, error, retryAt: clock.now() + retryDelay(attempt) });
    try {
      const result = await withinTime(timeoutMs, () => handler.run(ctx, event));
      if (result !== TIMED_OUT) return { ok: true };
      logger.warn({ timeout_ms: timeoutMs }, 'after handler timed out; it will be retried');
      return failed('timed out');
    } catch (error) {
      logger.error({ err: error }, 'after handler failed; it will be retried');
      return failed(error instanceof Error ? error.message : String(error));
    }
  }
}
