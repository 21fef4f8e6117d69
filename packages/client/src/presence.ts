import type { DisconnectOps, Send } from './disconnect-ops.js';
import type { CdsError } from './errors.js';
import { jsonEqual, normalizePath } from './tree.js';

/** What a connection tells the others about itself (`cds.presence(path, state)`). */
export type PresenceState = Record<string, unknown>;

/** What `cds.presence()` returns. */
export interface PresenceHandle {
  /** Resolves once the presence node is written on the current connection (rejects when the server refuses it). */
  readonly joined: Promise<void>;
  /** Replaces this connection's state (`since` becomes the time of this write); resolves once written. */
  update(state: PresenceState): Promise<void>;
  /** Removes this connection's node and its on-disconnect delete; the presence is not written again. */
  leave(): Promise<void>;
}

/** One user in `cds.onPresence`'s list: how many connections are present and the latest state among them. */
export interface PresenceEntry {
  user_id: number;
  connections: number;
  /** The state of the connection whose node was written last (the greatest `since`), without `since`. */
  state: PresenceState;
  /** That connection's `since`: the server time (epoch ms) of its last presence write. */
  since: number;
}

export type PresenceListener = (entries: PresenceEntry[]) => void;

interface Settle {
  resolve: () => void;
  reject: (error: CdsError) => void;
}

interface Presence {
  path: string;
  userId: number | null;
  state: PresenceState;
  /** This connection's node, `<path>/<user_id>/<connection_id>`, and whether its on-disconnect delete is armed. */
  node: string | null;
  armed: boolean;
  left: boolean;
  /** Callers waiting for the next write of the state to be acknowledged. */
  waiters: Settle[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The presences of one client (§17): on every connection each one arms an on-disconnect delete of
 * `<path>/<user_id>/<connection_id>` and, once the server acknowledged it, writes the node
 * `{...state, since: serverTimestamp}`. The connection id is new for every connection, so a late
 * delete of an old connection's node (after a silent network loss) never removes the new one.
 */
export class Presences {
  private readonly all = new Set<Presence>();
  private connectionId: string | null = null;

  constructor(
    private readonly ops: DisconnectOps,
    private readonly send: Send,
  ) {}

  get size(): number {
    return this.all.size;
  }

  /** Starts a presence for the user `userId` resolves to; written now when connected, else once connected. */
  join(path: string, state: PresenceState, userId: Promise<number>): PresenceHandle {
    const presence: Presence = {
      path: normalizePath(path),
      userId: null,
      state,
      node: null,
      armed: false,
      left: false,
      waiters: [],
    };
    const joined = this.waitForWrite(presence);
    joined.catch(() => {});
    userId.then(
      (id) => {
        if (presence.left) return;
        presence.userId = id;
        this.all.add(presence);
        if (this.connectionId) this.write(presence, this.connectionId);
      },
      (error: CdsError) => this.fail(presence, error),
    );
    return {
      joined,
      update: (next) => {
        presence.state = next;
        const written = this.waitForWrite(presence);
        if (presence.armed && presence.node) this.writeState(presence, presence.node);
        return written;
      },
      leave: () => this.leave(presence),
    };
  }

  /** A new connection with a new id: every presence writes its node there. */
  opened(connectionId: string): void {
    this.connectionId = connectionId;
    for (const presence of this.all) this.write(presence, connectionId);
  }

  /** The connection closed: the server deletes the nodes it held. */
  dropped(): void {
    this.connectionId = null;
    for (const presence of this.all) {
      presence.node = null;
      presence.armed = false;
    }
  }

  /** Ends every presence (sign-out, another user). */
  clear(error: CdsError): void {
    for (const presence of this.all) this.fail(presence, error);
    this.all.clear();
  }

  private write(presence: Presence, connectionId: string): void {
    const node = [presence.path, String(presence.userId), connectionId].filter((s) => s !== '').join('/');
    presence.node = node;
    presence.armed = false;
    this.ops.track({ action: 'on_disconnect', op: 'delete', path: node }, this.send).then(
      () => {
        if (presence.node !== node || presence.left) return;
        presence.armed = true;
        this.writeState(presence, node);
      },
      (error: CdsError) => {
        // A drop: the next connection writes it again. A refusal: the node is never written.
        if (error.status === 0) return;
        if (presence.waiters.length === 0) this.ops.reportRefusal(error);
        this.fail(presence, error);
      },
    );
  }

  private writeState(presence: Presence, node: string): void {
    const waiting = presence.waiters.splice(0);
    const value = { ...presence.state, since: { '.sv': 'timestamp' } };
    this.ops.track({ action: 'set', path: node, value }, this.send).then(
      () => {
        for (const waiter of waiting) waiter.resolve();
      },
      (error: CdsError) => {
        if (error.status === 0) presence.waiters.unshift(...waiting);
        else for (const waiter of waiting) waiter.reject(error);
        if (error.status !== 0 && waiting.length === 0) this.ops.reportRefusal(error);
      },
    );
  }

  private async leave(presence: Presence): Promise<void> {
    presence.left = true;
    this.all.delete(presence);
    for (const waiter of presence.waiters.splice(0)) waiter.resolve();
    const node = presence.node;
    presence.node = null;
    if (!node) return;
    // Delete first: were the connection lost between the two, its on-disconnect delete still runs.
    const dropped = (error: CdsError) => {
      if (error.status !== 0) throw error;
    };
    await Promise.all([
      this.ops.track({ action: 'delete', path: node }, this.send).catch(dropped),
      this.ops.track({ action: 'on_disconnect', op: 'cancel', path: node }, this.send).catch(dropped),
    ]);
  }

  private waitForWrite(presence: Presence): Promise<void> {
    return new Promise((resolve, reject) => presence.waiters.push({ resolve, reject }));
  }

  private fail(presence: Presence, error: CdsError): void {
    presence.left = true;
    this.all.delete(presence);
    for (const waiter of presence.waiters.splice(0)) waiter.reject(error);
  }
}

/** The `onPresence` list of a presence path's value `{user_id: {connection_id: {...state, since}}}`. */
export function presenceEntries(value: unknown): PresenceEntry[] {
  if (!isObject(value)) return [];
  const entries: PresenceEntry[] = [];
  for (const [userKey, connections] of Object.entries(value)) {
    if (!/^\d+$/.test(userKey) || !isObject(connections)) continue;
    const nodes = Object.values(connections).filter(isObject);
    if (nodes.length === 0) continue;
    const sinceOf = (node: Record<string, unknown>) => (typeof node.since === 'number' ? node.since : 0);
    const latest = nodes.reduce((a, b) => (sinceOf(b) > sinceOf(a) ? b : a));
    const { since: _since, ...state } = latest;
    entries.push({ user_id: Number(userKey), connections: nodes.length, state, since: sinceOf(latest) });
  }
  return entries;
}

/** Calls `cb` with the list now and whenever it changes, from the value updates of the presence path. */
export function presenceListener(cb: PresenceListener): (value: unknown) => void {
  let last: PresenceEntry[] | null = null;
  return (value) => {
    const entries = presenceEntries(value);
    if (last !== null && jsonEqual(last, entries)) return;
    last = entries;
    cb(entries);
  };
}
