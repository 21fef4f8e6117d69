/**
 * The port of on-disconnect writes (§17): the ops sockets stored, kept under the lease of the
 * instance holding each socket, so that another instance runs a dead one's ops. Core decides
 * (order, limit, cancel, rules, when to run); an engine stores, fetches and hands lapsed leases
 * over. Running an op is a tree write that deletes the op's row in its own transaction
 * (`TreeWrite.consumes`), so each op runs at most once whoever runs it.
 */
import type { JsonValue } from '../json.js';
import type { RuleAuth } from '../rules/compiled-ruleset.js';

/** The writes an on-disconnect op can make. */
export type DisconnectWriteOp = 'set' | 'patch' | 'delete';

/** One stored on-disconnect op. */
export interface DisconnectOp {
  /** Unique (a UUID core draws); the tree write that runs the op deletes the row by it. */
  id: string;
  /** The instance whose lease the op is kept under. */
  instanceId: string;
  /** The connection that stored it; its ops run when it ends. */
  connectionId: string;
  /** Its place among the connection's ops: they run in ascending order. */
  seq: number;
  projectId: number;
  op: DisconnectWriteOp;
  path: string;
  /** What a set or patch writes (null for a delete), with its `.sv` server values unresolved. */
  value: JsonValue;
  /** The client user of the socket; null for an admin socket (no rules). */
  userId: number | null;
  /** `request.auth` of that user when the op was stored: the rules see it when the op runs. */
  auth: RuleAuth | null;
  /** When it was stored (epoch ms). */
  createdAt: number;
}

export interface DisconnectOpStore {
  /** Takes (or takes back) the instance's lease until `expiresAt` (epoch ms). */
  startLease(instanceId: string, expiresAt: number): Promise<void>;
  /** Moves the lease's expiry; false when the instance holds no lease any more (another instance took it). */
  renewLease(instanceId: string, expiresAt: number): Promise<boolean>;
  /** Gives the lease up (a clean stop that left no ops). */
  endLease(instanceId: string): Promise<void>;
  /** Stores an op under its instance's lease; false (nothing stored) when that instance holds no lease. */
  add(op: DisconnectOp): Promise<boolean>;
  /** Deletes ops by id (cancelled, or dropped at run time); ids already gone are ignored. */
  remove(ids: readonly string[]): Promise<void>;
  /** Every op kept under the instance's lease, by connection and then `seq`. */
  ofInstance(instanceId: string): Promise<DisconnectOp[]>;
  /**
   * Takes over the leases that lapsed before `now` (of other instances): their ops move under
   * `claimer`'s lease and the lapsed leases end, all at once. Of claimers racing for one lease
   * exactly one gets its ops. Answers the number of ops moved.
   */
  claimLapsed(claimer: string, now: number): Promise<number>;
}

/** The refusal of a tree write whose on-disconnect op has run already (its row is gone): nothing is written. */
export class DisconnectOpGone extends Error {
  constructor(readonly opId: string) {
    super(`On-disconnect op ${opId} has already run`);
  }
}
