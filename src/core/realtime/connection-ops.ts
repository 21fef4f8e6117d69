/**
 * One connection's on-disconnect writes (§17): what core decides when a socket stores or cancels
 * one (the path and value checks of the write, the §9 write rules as of now, the limit per
 * connection, which ops a cancel removes) and, once the connection ends, its ops in the order
 * stored. Requests and the end are handled one after another, so an end waits for a store in flight.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import type { PathLimits } from '../paths.js';
import type { DisconnectOp } from './disconnect-op-store.js';
import type { DisconnectRequest } from './messages.js';
import { isAtOrBelow } from './tree-path.js';
import { deniedByRules, type PlannedWrite } from './tree-rules.js';
import type { TreeService } from './tree-service.js';
import { planPatch, planSet } from './tree-write.js';

/** On-disconnect writes a connection may hold at once (§17). */
export const MAX_DISCONNECT_OPS = 64;

/** The error of a store past the limit. */
export const TOO_MANY_DISCONNECT_OPS = `Too many on-disconnect writes: at most ${MAX_DISCONNECT_OPS} per connection`;

/** What a connection's ops need of the instance's `DisconnectOps`. */
export interface ConnectionOpsHost {
  readonly instanceId: string;
  readonly tree: TreeService;
  readonly pathLimits: PathLimits;
  readonly now: () => number;
  /** Stores an op under the instance's lease. */
  add(op: DisconnectOp): Promise<void>;
  /** Deletes cancelled ops. */
  remove(ids: string[]): Promise<void>;
  /** Runs the ops of an ended connection (once known), in order; resolves once each ran or was dropped. */
  run(connectionId: string, ops: Promise<readonly DisconnectOp[]>): Promise<void>;
}

export class ConnectionOps {
  /** The connection's id, under which its ops are stored. */
  readonly id = randomUUID();
  private ops: DisconnectOp[] = [];
  private seq = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private ended: Promise<void> | null = null;

  constructor(
    private readonly host: ConnectionOpsHost,
    readonly projectId: number,
    /** The client user of the socket; undefined for an admin socket (no rules). */
    readonly userId: number | undefined,
    /** Told when another instance took the connection's ops (this instance's lease lapsed): the socket should end. */
    readonly onTakenOver: () => void,
  ) {}

  /** How many ops the connection holds. */
  get size(): number {
    return this.ops.length;
  }

  /** Stores a write or cancels ops; throws the refusal (an AppError, answered as an `error` event). */
  request(request: DisconnectRequest): Promise<void> {
    const done = this.chain.then(() => this.apply(request));
    this.chain = done.catch(() => undefined);
    return done;
  }

  /** The connection ended: runs its ops once the requests in flight are done. Resolves when they ran. */
  end(): Promise<void> {
    this.ended ??= this.host.run(
      this.id,
      this.chain.then(() => this.ops),
    );
    return this.ended;
  }

  private async apply(request: DisconnectRequest): Promise<void> {
    if (this.ended) throw new AppError('conflict', 'The connection has ended');
    if (request.op === 'cancel') {
      const cancelled = this.ops.filter((op) => isAtOrBelow(op.path, request.path));
      if (cancelled.length === 0) return;
      await this.host.remove(cancelled.map((op) => op.id));
      this.ops = this.ops.filter((op) => !cancelled.includes(op));
      return;
    }
    if (this.ops.length >= MAX_DISCONNECT_OPS) throw new AppError('conflict', TOO_MANY_DISCONNECT_OPS);
    await this.checkWrite(request);
    const { tree } = this.host;
    const auth = this.userId === undefined ? null : await tree.ruleAuthOf(this.projectId, this.userId);
    this.seq += 1;
    const op: DisconnectOp = {
      id: randomUUID(),
      instanceId: this.host.instanceId,
      connectionId: this.id,
      seq: this.seq,
      projectId: this.projectId,
      op: request.op,
      path: request.path,
      value: 'value' in request ? request.value : null,
      userId: this.userId ?? null,
      auth,
      createdAt: this.host.now(),
    };
    await this.host.add(op);
    this.ops.push(op);
  }

  /** The checks of the write itself (path, value: 400/422) and its §9 write rules as of now (403). */
  private async checkWrite(request: Exclude<DisconnectRequest, { op: 'cancel' }>): Promise<void> {
    const { tree, pathLimits } = this.host;
    let writes: PlannedWrite[];
    if (request.op === 'set') writes = [planSet(request.path, request.value, pathLimits)];
    else if (request.op === 'patch') writes = planPatch(request.path, request.value, pathLimits);
    else writes = [{ path: request.path, value: null }];
    const rules = await tree.rulesFor(this.projectId, this.userId);
    if (!rules) return;
    // A PATCH without keys changes nothing at its path, and needs `write` there.
    if (writes.length === 0) writes = [{ path: request.path, value: await tree.valueAt(this.projectId)(request.path) }];
    if (!(await rules.mayWrite(writes, tree.valueAt(this.projectId)))) throw deniedByRules();
  }
}
