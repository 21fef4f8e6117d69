/**
 * Schedules (§16): every instance looks each second for ticks that came due, and claims each
 * (project, schedule, tick) in the database (`ScheduleStore.claim`, a compare-and-set of the last
 * tick run), so one instance of the cluster runs it. A tick missed while no instance ran is the
 * latest tick when an instance starts: it is claimed and run then, once (earlier missed ticks are
 * not). A schedule seen for the first time for a project starts at the last tick before this
 * instance started, so loading a schedule does not run a tick from before it was loaded. Runs go
 * on in the background: requests never wait for them, and a throw or a time-out is logged and
 * reported (`schedule:<name>`) without stopping later ticks.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AdminApi } from './admin-api.js';
import type { ChildLogger } from './before-hooks.js';
import { Cron } from './cron.js';
import { type FunctionObserver, observed } from './function-observer.js';
import type { FoundSchedule, FunctionRegistry } from './function-registry.js';
import { type FunctionContext, functionLog } from './functions-module.js';
import type { ScheduleStore } from './schedule-store.js';
import { TIMED_OUT, withinTime } from './time-limit.js';

export interface ScheduleRunnerDeps {
  registry: FunctionRegistry;
  store: ScheduleStore;
  admin: (projectId: number) => AdminApi;
  clock: Clock;
  log: ChildLogger;
  /** How long a run may take before it counts as timed out (`CDS_FUNCTION_TIMEOUT_MS`). */
  timeoutMs: number;
  observer?: FunctionObserver;
  /** How often due ticks are looked for; default 1 s. */
  pollMs?: number;
}

/** A loaded schedule with its parsed cron and its name in the store. */
interface Schedule {
  found: FoundSchedule;
  cron: Cron;
  /** The module's file name and the schedule's name: `daily.ts#rewards`. */
  key: string;
}

/** The file name of a module path, so moving the functions folder keeps the schedules' last ticks. */
const fileName = (file: string): string => file.split(/[\\/]/).pop() ?? file;

/** Runs the loaded modules' schedules, on every instance, each tick once across the cluster. */
export class ScheduleRunner {
  private readonly schedules: readonly Schedule[];
  /** The last tick each schedule was looked at for on this instance, by key. */
  private readonly checked = new Map<string, number>();
  /** The (project, schedule) pairs that have a row in the store already: `project/key`. */
  private readonly begun = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private startedAt = 0;
  private stopped = false;

  constructor(private readonly deps: ScheduleRunnerDeps) {
    this.schedules = deps.registry
      .schedules()
      .map((found) => ({ found, cron: Cron.of(found.cron), key: `${fileName(found.file)}#${found.name}` }));
  }

  /** Looks for due ticks now (the missed one) and every `pollMs`; nothing when no module has schedules. */
  start(): void {
    if (this.timer || this.stopped || this.schedules.length === 0) return;
    this.startedAt = this.deps.clock.now();
    this.timer = setInterval(() => void this.check(), this.deps.pollMs ?? 1000);
    this.timer.unref();
    void this.check();
  }

  /** Looks for due ticks now, and resolves once the runs this started have ended (tests drive a clock with it). */
  async runDue(): Promise<void> {
    if (!this.timer) return;
    await this.check();
    await Promise.all([...this.running]);
  }

  /** Stops looking for ticks, after the round and the runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.queued;
    await this.current;
    await Promise.all([...this.running]);
  }

  /** A round now, or once after the one under way (at most one waits). */
  private check(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (!this.current) {
      this.current = this.round().finally(() => {
        this.current = null;
      });
      return this.current;
    }
    this.queued ??= this.current.then(() => {
      this.queued = null;
      return this.check();
    });
    return this.queued;
  }

  private async round(): Promise<void> {
    const { clock, store, log } = this.deps;
    const now = clock.now();
    // Read once a round, and only when a tick is due: a listed project that does not exist is skipped.
    let existing: number[] | null = null;
    for (const schedule of this.schedules) {
      const tick = schedule.cron.latest(now);
      if (this.stopped || tick === null || tick <= (this.checked.get(schedule.key) ?? Number.NEGATIVE_INFINITY)) {
        continue;
      }
      try {
        existing ??= await store.projectIds();
        const { projects } = schedule.found;
        for (const projectId of projects === '*' ? existing : existing.filter((id) => projects.includes(id))) {
          await this.claim(schedule, projectId, tick);
        }
        this.checked.set(schedule.key, tick);
      } catch (error) {
        // Looked at again on the next round: the tick is not marked checked.
        log.child({ schedule: schedule.found.name }).error({ err: error }, 'schedule ticks could not be claimed');
      }
    }
  }

  /** Claims the tick for the project and, when this instance got it, runs it in the background. */
  private async claim(schedule: Schedule, projectId: number, tick: number): Promise<void> {
    const { store } = this.deps;
    const pair = `${projectId}/${schedule.key}`;
    if (!this.begun.has(pair)) {
      await store.begin(projectId, schedule.key, schedule.cron.latest(this.startedAt) ?? -1);
      this.begun.add(pair);
    }
    if (!(await store.claim(projectId, schedule.key, tick))) return;
    const run = this.run(schedule.found, projectId, tick).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** One run: under the time limit, reported as `schedule:<name>`, a failure logged. */
  private async run(schedule: FoundSchedule, projectId: number, tick: number): Promise<void> {
    const { clock, timeoutMs } = this.deps;
    const requestId = randomUUID();
    const logger = this.deps.log.child({
      schedule: schedule.name,
      project_id: projectId,
      request_id: requestId,
      tick: new Date(tick).toISOString(),
    });
    const ctx: FunctionContext<AdminApi> = {
      project_id: projectId,
      caller: null,
      request_id: requestId,
      log: functionLog(logger),
      now: () => clock.now(),
      admin: this.deps.admin(projectId),
    };
    try {
      await observed(this.deps.observer, projectId, `schedule:${schedule.name}`, async () => {
        const result = await withinTime(timeoutMs, () => schedule.run(ctx));
        if (result === TIMED_OUT) throw new AppError('timed_out', 'Function timed out');
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'timed_out') {
        logger.warn({ timeout_ms: timeoutMs }, `schedule '${schedule.name}' timed out`);
      } else {
        logger.error({ err: error }, `schedule '${schedule.name}' failed`);
      }
    }
  }
}
