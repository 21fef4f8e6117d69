/**
 * On-disconnect writes of one instance (§17). Each connection's ops are kept in memory and in the
 * database under this instance's lease, renewed every third of its duration. When a connection
 * ends its ops run here at once, in order, each as an ordinary tree write that deletes the op's
 * row in its transaction (so an op runs once, whoever runs it). Every renewal also claims the
 * leases of instances that stopped renewing theirs, and runs the ops that came with them; a run
 * that failed for want of the database is tried again then, its connection's later ops waiting.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { type ChildLogger, type HookOrigin, HookTimedOut } from '../functions/before-hooks.js';
import type { JsonObject } from '../json.js';
import type { PathLimits } from '../paths.js';
import { ConnectionOps, type ConnectionOpsHost } from './connection-ops.js';
import { type DisconnectOp, DisconnectOpGone, type DisconnectOpStore } from './disconnect-op-store.js';
import type { TreeService, TreeWriteOptions } from './tree-service.js';

/** How an op's run ended: written, or dropped (denied or refused when it ran, or run already). */
export type DisconnectOutcome = 'ran' | 'dropped';

/** Told of each op's run (the `cds_disconnect_ops_total` metric). */
export interface DisconnectObserver {
  disconnectOp(outcome: DisconnectOutcome): void;
}

/** Where runs are logged: drops at debug, failures at warn. */
export interface DisconnectLog {
  debug(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

export interface DisconnectOpsOptions {
  store: DisconnectOpStore;
  tree: TreeService;
  clock: Clock;
  pathLimits: PathLimits;
  /** How long the instance's lease lasts unrenewed: another instance runs its ops within about this plus a third. */
  leaseMs: number;
  log: DisconnectLog;
  /** The log a player's op's `realtime.write` before hook (§16) writes to. */
  hookLog: ChildLogger;
  observer?: DisconnectObserver;
}

/**
 * Whether a run failed for want of the database (503 other than a before hook's time-out): the op
 * stays stored and is tried again. Any other failure (rules, a hook's refusal or time-out) drops it.
 */
const isOutage = (error: unknown): boolean =>
  error instanceof AppError && error.code === 'unavailable' && !(error instanceof HookTimedOut);

/** Default lease: another instance runs a dead one's ops within 20 s of its last renewal (§17: 30 s). */
export const DEFAULT_INSTANCE_LEASE_MS = 15_000;

export class DisconnectOps implements ConnectionOpsHost {
  /** This instance, as its lease and its ops name it. */
  readonly instanceId = randomUUID();
  readonly tree: TreeService;
  readonly pathLimits: PathLimits;
  readonly now: () => number;
  private readonly connections = new Map<string, ConnectionOps>();
  /** Connections whose ops run now: a renewal's retry leaves them alone. */
  private readonly running = new Set<string>();
  private readonly runs = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private retry = false;
  private leased: Promise<void> | null = null;

  constructor(private readonly options: DisconnectOpsOptions) {
    this.tree = options.tree;
    this.pathLimits = options.pathLimits;
    this.now = () => options.clock.now();
  }

  /** Takes the lease and renews it, claiming lapsed ones, until `stop`. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), Math.max(200, Math.floor(this.options.leaseMs / 3)));
    this.timer.unref();
    void this.tick();
  }

  /** Stops renewing once the runs in flight are done; gives the lease up when no op of it is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.settled();
    try {
      if (this.leased && (await this.options.store.ofInstance(this.instanceId)).length === 0) {
        await this.options.store.endLease(this.instanceId);
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'on-disconnect lease not given up: it lapses instead');
    }
  }

  /** Resolves once every run started so far is done. */
  async settled(): Promise<void> {
    while (this.runs.size > 0) await Promise.all([...this.runs]);
  }

  /** A new connection's ops; `onTakenOver` ends its socket if another instance took them (a lapsed lease). */
  connection(projectId: number, userId: number | undefined, onTakenOver: () => void): ConnectionOps {
    const connection = new ConnectionOps(this, projectId, userId, onTakenOver);
    this.connections.set(connection.id, connection);
    return connection;
  }

  async add(op: DisconnectOp): Promise<void> {
    await this.lease();
    if (await this.options.store.add(op)) return;
    // The lease lapsed and was taken with its ops: take a new one (the taken connections end).
    await this.leaseLost();
    if (!(await this.options.store.add(op))) throw new AppError('unavailable', 'On-disconnect writes unavailable');
  }

  remove(ids: string[]): Promise<void> {
    return this.options.store.remove(ids);
  }

  run(connectionId: string, ops: Promise<readonly DisconnectOp[]>): Promise<void> {
    this.running.add(connectionId);
    const run = this.runInOrder(ops).finally(() => {
      this.running.delete(connectionId);
      this.connections.delete(connectionId);
      this.runs.delete(run);
    });
    this.runs.add(run);
    return run;
  }

  private lease(): Promise<void> {
    this.leased ??= this.options.store.startLease(this.instanceId, this.now() + this.options.leaseMs).catch((error) => {
      this.leased = null;
      throw error;
    });
    return this.leased;
  }

  /** Renews the lease, claims lapsed ones, and runs the ops of ended connections still stored here. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const { store, leaseMs } = this.options;
      await this.lease();
      if (!(await store.renewLease(this.instanceId, this.now() + leaseMs))) await this.leaseLost();
      const claimed = await store.claimLapsed(this.instanceId, this.now());
      if (claimed > 0 || this.retry) await this.runStranded();
    } catch (error) {
      this.options.log.warn({ err: error }, 'on-disconnect lease renewal failed; trying again');
    } finally {
      this.ticking = false;
    }
  }

  /** Another instance took this one's ops: the open connections that had some end, to store them again. */
  private async leaseLost(): Promise<void> {
    this.options.log.warn({ instance: this.instanceId }, 'on-disconnect lease lapsed and was taken over');
    this.leased = null;
    await this.lease();
    for (const connection of this.connections.values()) {
      if (connection.size > 0 && !this.running.has(connection.id)) connection.onTakenOver();
    }
  }

  /** Runs the stored ops of connections that are neither open here nor running (claimed, or to retry). */
  private async runStranded(): Promise<void> {
    this.retry = false;
    const byConnection = new Map<string, DisconnectOp[]>();
    for (const op of await this.options.store.ofInstance(this.instanceId)) {
      if (this.connections.has(op.connectionId) || this.running.has(op.connectionId)) continue;
      byConnection.set(op.connectionId, [...(byConnection.get(op.connectionId) ?? []), op]);
    }
    for (const [connectionId, ops] of byConnection) {
      this.run(connectionId, Promise.resolve(ops)).catch((error: unknown) =>
        this.options.log.warn({ err: error }, 'on-disconnect writes of a taken-over connection failed'),
      );
    }
  }

  private async runInOrder(ops: Promise<readonly DisconnectOp[]>): Promise<void> {
    for (const op of await ops) {
      if (!(await this.runOne(op))) {
        // The database is away: this op and the ones after it wait for the next renewal.
        this.retry = true;
        return;
      }
    }
  }

  /** Runs one op; false when it could not for want of the database (it stays stored). */
  private async runOne(op: DisconnectOp): Promise<boolean> {
    const { tree } = this;
    const userId = op.userId ?? undefined;
    const write: TreeWriteOptions = { stored: { opId: op.id, auth: op.auth } };
    if (op.userId !== null) write.origin = this.originOf(op.userId);
    try {
      if (op.op === 'set') await tree.set(op.projectId, op.path, op.value, userId, write);
      else if (op.op === 'patch') await tree.patch(op.projectId, op.path, op.value as JsonObject, userId, write);
      else await tree.delete(op.projectId, op.path, userId, write);
      this.options.observer?.disconnectOp('ran');
      return true;
    } catch (error) {
      if (isOutage(error)) {
        this.options.log.warn({ err: error, op: op.id }, 'on-disconnect write postponed: database unavailable');
        return false;
      }
      this.options.observer?.disconnectOp('dropped');
      const details = { op: op.id, project: op.projectId, path: op.path, reason: (error as Error).message };
      if (error instanceof DisconnectOpGone) this.options.log.debug(details, 'on-disconnect write ran already');
      else {
        this.options.log.debug(details, 'on-disconnect write dropped');
        await this.options.store.remove([op.id]).catch(() => undefined);
      }
      return true;
    }
  }

  /** The origin of an op's before hook (§16): the op's user; a request id drawn when the hook asks. */
  private originOf(userId: number): HookOrigin {
    let requestId: string | undefined;
    const log = this.options.hookLog;
    return {
      userId,
      get requestId() {
        requestId ??= randomUUID();
        return requestId;
      },
      log,
    };
  }
}
