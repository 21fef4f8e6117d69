import type { Bus, CommitSource } from '../bus.js';
import { AppError } from '../errors.js';
import { type EventRecording, recordOf } from '../events/event-recording.js';
import { type HookOrigin, unusableReplacement, type WriteHooks } from '../functions/before-hooks.js';
import type { RealtimeWriteArgument } from '../functions/functions-module.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.js';
import { defaultPathLimits, type PathLimits } from '../paths.js';
import type { RuleAuth } from '../rules/compiled-ruleset.js';
import { commitChannel, decodeCommits } from './commit-event.js';
import { type SubtreeJson, SubtreeJsonCache } from './subtree-cache.js';
import { type TreeMatch, TreePreconditionFailed, treeEtag, treeWriteHook } from './tree-atomic.js';
import { type LocalCommitListener, TreeCommits } from './tree-commits.js';
import { parseTreePath } from './tree-path.js';
import { type CallerRules, deniedByRules, type PlannedWrite, type TreeRules, type ValueAt } from './tree-rules.js';
import type { ChangeLogRetention, TreeCommit, TreeHistory, TreeSnapshot, TreeStore, TreeWrite } from './tree-store.js';
import { shallowValue } from './tree-value.js';
import { planPatch, planSet } from './tree-write.js';

/** Settings of the realtime tree. */
export interface TreeServiceOptions {
  pathLimits?: PathLimits;
  /** How much change log each write keeps (§4 resume). */
  retention: ChangeLogRetention;
  /** Told when a commit could not be published (the write itself stands). */
  onPublishError?: (error: unknown) => void;
  /** The access rules of client users (§9); without them every caller may do everything. */
  rules?: TreeRules;
  /** Bytes of large subtrees' JSON kept between GETs (`SubtreeJsonCache`); none by default. */
  readCacheBytes?: number;
  /** The projects' `realtime.write` before hooks (§16); none by default. */
  hooks?: WriteHooks;
  /** Which projects' writes record `realtime.written` events (§16); none by default. */
  events?: EventRecording;
}

/** What a tree write carries beyond its path and value (§11). */
export interface TreeWriteOptions {
  /** The ETags the value at the path must have now (`*`: any value but null); else 412. */
  ifMatch?: TreeMatch;
  /**
   * Called once the write has its place in the commit order, after its checks: it commits after
   * every write placed before it (a connection's writes can then be placed one after another
   * without each waiting for the previous one's commit).
   */
  placed?: () => void;
  /** Who asked, when a client did: the write goes through the project's `realtime.write` hook. */
  origin?: HookOrigin;
  /**
   * An on-disconnect write (§17): the op it runs (its stored row is deleted in the write's
   * transaction, and the write refused when it is gone) and the `request.auth` its rules see, the
   * user's when it was stored (null: a trusted caller's op, no rules).
   */
  stored?: { opId: string; auth: RuleAuth | null };
}

/** A path and the value stored there after a write (or for a read). */
export interface TreeValue {
  path: string;
  value: JsonValue;
}

/** A read value as its canonical JSON text (keys sorted) in UTF-8 and that text's ETag (§11). */
export interface TreeJson {
  path: string;
  json: Uint8Array;
  etag: string;
}

/**
 * A write's answer. Its ETag (a hash of the canonical JSON) is computed when read: a REST answer
 * sends it, a WebSocket `ack` does not.
 */
function written(path: string, value: JsonValue, version: number): TreeValue & { version: number; etag: string } {
  let etag: string | undefined;
  return {
    path,
    value,
    version,
    get etag() {
      etag ??= treeEtag(value);
      return etag;
    },
  };
}

/** The plan of a hook's replacement; one the tree cannot take is the hook's failure (500), not the client's. */
function replacedPlan<T>(origin: HookOrigin | undefined, plan: () => T): T {
  try {
    return plan();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw unusableReplacement(origin as HookOrigin, 'realtime.write', `the replacement cannot be written: ${why}`);
  }
}

/** Default change log: the last 10,000 writes, none older than 10 minutes (§4). */
export const defaultRetention: ChangeLogRetention = { maxWrites: 10_000, maxAgeMs: 10 * 60_000 };

/**
 * The realtime tree's rules (§3) over any storage engine: every write is validated, then
 * committed at the project's next version with the writes that arrived with it (`TreeCommits`:
 * one transaction and one bus message for them all), and answered once published.
 *
 * Operations given a `userId` are those of a client user and obey the project's access rules
 * (§9), checked after the path and value checks and before anything is written; without one
 * (admin, import) they are trusted.
 */
export class TreeService {
  private readonly limits: PathLimits;
  private readonly commits: TreeCommits;
  private readonly subtrees: SubtreeJsonCache;

  constructor(
    private readonly store: TreeStore,
    bus: Bus,
    private readonly options: TreeServiceOptions,
  ) {
    this.limits = options.pathLimits ?? defaultPathLimits;
    this.commits = new TreeCommits(store, bus, options.retention, options.onPublishError);
    this.subtrees = new SubtreeJsonCache(store, { maxBytes: options.readCacheBytes ?? 0 });
  }

  /** Normalizes a client path (§0); 400 on a bad one. */
  parsePath(rawPath: string): string {
    return parseTreePath(rawPath, this.limits);
  }

  /** The assembled subtree at `rawPath` (null when empty), or only its keys when `shallow`. */
  async get(projectId: number, rawPath: string, shallow = false, userId?: number): Promise<TreeValue> {
    const path = this.parsePath(rawPath);
    const rules = await this.rulesFor(projectId, userId);
    if (!shallow) {
      // A rule reading `resource.value` reads the very snapshot the answer returns.
      let snapshot: Promise<TreeSnapshot> | null = null;
      const read = () => (snapshot ??= this.store.snapshot(projectId, path));
      if (rules && !(await rules.mayRead(path, async () => (await read()).value))) throw deniedByRules();
      return { path, value: (await read()).value };
    }
    if (rules && !(await rules.mayRead(path, this.valueAt(projectId)))) throw deniedByRules();
    const { leaf, keys } = await this.store.children(projectId, path);
    return { path, value: keys.length > 0 ? shallowValue(keys) : leaf };
  }

  /**
   * The subtree at `rawPath` as canonical JSON text with its ETag: serialized from the leaves'
   * stored text, never assembled into objects (a 1,000-leaf GET costs a fraction of `get`), or
   * kept from an earlier GET while the change log shows it unchanged.
   */
  async getJson(projectId: number, rawPath: string, userId?: number): Promise<TreeJson> {
    const path = this.parsePath(rawPath);
    const rules = await this.rulesFor(projectId, userId);
    // A rule reading `resource.value` reads the very snapshot the answer returns.
    let answer: Promise<SubtreeJson> | null = null;
    const read = () => (answer ??= this.subtrees.read(projectId, path));
    const value = async () => JSON.parse(new TextDecoder().decode((await read()).json)) as JsonValue;
    if (rules && !(await rules.mayRead(path, value))) throw deniedByRules();
    const { json, etag } = await read();
    return { path, json, etag };
  }

  /** Replaces the subtree at `rawPath`; returns the value now stored there. */
  async set(
    projectId: number,
    rawPath: string,
    value: JsonValue,
    userId?: number,
    write: TreeWriteOptions = {},
  ): Promise<TreeValue & { version: number; etag: string }> {
    const path = this.parsePath(rawPath);
    let set = planSet(path, value, this.limits);
    await this.requireWrite(projectId, userId, [set], write);
    const replacement = await this.runHook(projectId, write.origin, { op: 'set', path, value });
    if (replacement !== undefined) set = replacedPlan(write.origin, () => planSet(path, replacement, this.limits));
    const hook = treeWriteHook(path, [set], write.ifMatch) ?? undefined;
    const commit = await this.unlessHidden(projectId, userId, path, () =>
      this.place({ projectId, sets: [set], hook, readBack: null, ...this.event(projectId, path, false) }, write),
    );
    const stored = commit.changes[0]?.value ?? null;
    return written(path, stored, commit.version);
  }

  /**
   * Applies each key of `value` as a child set of `rawPath`, atomically; returns the merged value,
   * or null when a rule forbids the caller to read `rawPath`.
   */
  async patch(
    projectId: number,
    rawPath: string,
    value: JsonObject,
    userId?: number,
    write: TreeWriteOptions = {},
  ): Promise<TreeValue & { version: number; etag: string | null }> {
    const path = this.parsePath(rawPath);
    let sets = planPatch(path, value, this.limits);
    const rules = await this.rulesOfWrite(projectId, userId, write);
    if (rules) {
      // A PATCH without keys changes nothing at `path`, and needs `write` there.
      const writes: PlannedWrite[] = sets.length > 0 ? sets : [{ path, value: await this.valueAt(projectId)(path) }];
      if (!(await rules.mayWrite(writes, this.valueAt(projectId)))) throw deniedByRules();
    }
    const replacement = await this.runHook(projectId, write.origin, { op: 'patch', path, value });
    if (replacement !== undefined) {
      sets = replacedPlan(write.origin, () => {
        if (!isJsonObject(replacement)) throw new TypeError('a PATCH takes an object of child values');
        return planPatch(path, replacement, this.limits);
      });
    }
    const hook = treeWriteHook(path, sets, write.ifMatch) ?? undefined;
    const commit = await this.unlessHidden(projectId, userId, path, () =>
      this.place({ projectId, sets, hook, readBack: path, ...this.event(projectId, path, true) }, write),
    );
    const readable = !rules || (await rules.mayRead(path, async () => commit.value));
    // No ETag for a value the caller may not read: its hash would tell something of it.
    return readable
      ? written(path, commit.value, commit.version)
      : { path, value: null, version: commit.version, etag: null };
  }

  /** Deletes the subtree at `rawPath`, whether or not anything was there. */
  async delete(
    projectId: number,
    rawPath: string,
    userId?: number,
    write: TreeWriteOptions = {},
  ): Promise<{ deleted: string; version: number }> {
    const path = this.parsePath(rawPath);
    await this.requireWrite(projectId, userId, [{ path, value: null }], write);
    const replacement = await this.runHook(projectId, write.origin, { op: 'delete', path, value: null });
    if (replacement !== undefined) {
      throw unusableReplacement(write.origin as HookOrigin, 'realtime.write', 'a delete takes no replacement');
    }
    const sets = [{ path, value: null, leaves: [] }];
    const hook = treeWriteHook(path, sets, write.ifMatch) ?? undefined;
    const commit = await this.unlessHidden(projectId, userId, path, () =>
      this.place({ projectId, sets, hook, readBack: null, ...this.event(projectId, path, false) }, write),
    );
    return { deleted: path, version: commit.version };
  }

  /** What the project's `realtime.write` hook returns for a client's write (undefined: write as asked, or no hook). */
  private async runHook(projectId: number, origin: HookOrigin | undefined, write: RealtimeWriteArgument) {
    const hook = origin ? this.options.hooks?.find(projectId, 'realtime.write') : undefined;
    return hook && origin ? ((await hook(origin, write)) as JsonValue | undefined) : undefined;
  }

  /** The write's `realtime.written` event: recorded always, or if its project has a webhook when it commits. */
  private event(projectId: number, path: string, patch: boolean): Pick<TreeWrite, 'event'> {
    return { event: { path, patch, record: recordOf(this.options.events, projectId) } };
  }

  /** Hands a checked write to the commits, telling `write.placed`. */
  private place(treeWrite: TreeWrite, write: TreeWriteOptions): Promise<TreeCommit & { value: JsonValue }> {
    const committed = this.commits.commit(write.stored ? { ...treeWrite, consumes: write.stored.opId } : treeWrite);
    write.placed?.();
    return committed;
  }

  /**
   * Runs a write; a refused precondition tells the current etag and value only to a caller who may
   * read the path (§9), others get the bare 412.
   */
  private async unlessHidden<T>(projectId: number, userId: number | undefined, path: string, write: () => Promise<T>) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof TreePreconditionFailed)) throw error;
      const rules = await this.rulesFor(projectId, userId);
      if (!rules || (await rules.mayRead(path, async () => error.value))) throw error;
      throw new AppError('precondition_failed', error.message);
    }
  }

  /**
   * The rules client user `userId` is held to now (§9); null for a trusted caller (no user), when
   * the tree has no rules, or under the open ruleset.
   */
  async rulesFor(projectId: number, userId: number | undefined): Promise<CallerRules | null> {
    if (userId === undefined || !this.options.rules) return null;
    const rules = await this.options.rules.of(projectId, userId);
    return rules.open ? null : rules;
  }

  /** The rules a write is held to: the caller's now, or for an on-disconnect write (§17) those of its stored auth. */
  private async rulesOfWrite(
    projectId: number,
    userId: number | undefined,
    write: TreeWriteOptions,
  ): Promise<CallerRules | null> {
    if (!write.stored) return this.rulesFor(projectId, userId);
    if (write.stored.auth === null || !this.options.rules) return null;
    const rules = await this.options.rules.withAuth(projectId, write.stored.auth);
    return rules.open ? null : rules;
  }

  /** The `request.auth` of client user `userId` now (§17 stores it with an on-disconnect write); null without rules. */
  async ruleAuthOf(projectId: number, userId: number): Promise<RuleAuth | null> {
    return this.options.rules ? this.options.rules.authOf(projectId, userId) : null;
  }

  /** Calls `listener` with the project id whenever a project's ruleset changes; returns a function that stops. */
  onRulesChange(listener: (projectId: number) => void): () => void {
    return this.options.rules?.onChange(listener) ?? (() => undefined);
  }

  /** The subtree at a normalized path with the version it reflects (a subscription's `init`). */
  snapshot(projectId: number, path: string): Promise<TreeSnapshot> {
    return this.store.snapshot(projectId, path);
  }

  /** The commits after `version`, or null when the change log no longer covers them. */
  /** Where a feed of the project's commits hears of them and reads the ones it missed. */
  commitSource(projectId: number): CommitSource<TreeCommit> {
    return {
      channel: commitChannel(projectId),
      origin: this.origin,
      decode: (message) => {
        const events = decodeCommits(message);
        return events?.every((event) => event.projectId === projectId) ? events : null;
      },
      currentVersion: () => this.currentVersion(projectId),
      changesSince: (version) => this.changesSince(projectId, version),
    };
  }

  changesSince(projectId: number, version: number): Promise<TreeHistory | null> {
    return this.store.changesSince(projectId, version);
  }

  /** The project's current version (0 before its first write). */
  currentVersion(projectId: number): Promise<number> {
    return this.store.currentVersion(projectId);
  }

  /** The change-log retention every commit of the tree applies. */
  get retention(): ChangeLogRetention {
    return this.options.retention;
  }

  /** Marks this instance's bus messages of commits (`isOwnMessage`): its own listeners had them already. */
  get origin(): string {
    return this.commits.origin;
  }

  /**
   * Calls `listener` with the commits of this instance's writes right after their COMMIT, in
   * version order per project, before they are published on the bus; returns a function that stops.
   */
  onLocalCommits(listener: LocalCommitListener): () => void {
    return this.commits.onLocalCommits(listener);
  }

  /** Publishes a commit made outside this service (an import) so live subscribers see it at once. */
  announce(projectId: number, commit: TreeCommit): Promise<void> {
    return this.commits.publish(projectId, [commit]);
  }

  /** Reads the value at a path of the project, for rules reading `resource.value`. */
  valueAt(projectId: number): ValueAt {
    return async (path) => (await this.store.snapshot(projectId, path)).value;
  }

  private async requireWrite(
    projectId: number,
    userId: number | undefined,
    writes: PlannedWrite[],
    write: TreeWriteOptions = {},
  ): Promise<void> {
    const rules = await this.rulesOfWrite(projectId, userId, write);
    if (rules && !(await rules.mayWrite(writes, this.valueAt(projectId)))) throw deniedByRules();
  }
}
