/**
 * Access rules (§9) on the realtime tree. A read at P needs `read` at P or an ancestor; a write
 * at P needs `write` at P, with `resource.value` the value at P before it and
 * `request.resource.value` the value after (null when it deletes); `request.resource` is null for
 * reads. A stored value is read only when a candidate rule names `resource`.
 *
 * A check and the write it allows are not one transaction: a rule reading `resource.value` sees
 * the value read just before the write, and another writer may commit in between.
 */
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { type CompiledRuleset, OPEN_RULES, type RuleAuth, type RuleCheck } from '../rules/compiled-ruleset.js';
import type { RuleAuthLookup } from '../rules/rule-auth.js';
import type { RulesSource } from '../rules/rules-source.js';

/** The message of every denial (403 on REST, `error` and `cancel` on the socket). */
export const DENIED_BY_RULES = 'Permission denied by rules';

/** The 403 of a denied realtime operation. */
export const deniedByRules = (): AppError => new AppError('forbidden', DENIED_BY_RULES);

/** Reads the value stored at a path (asked only when a rule needs it). */
export type ValueAt = (path: string) => Promise<JsonValue>;

/** A value to be written at a path. */
export interface PlannedWrite {
  path: string;
  /** The value at `path` after the write; null when it deletes. */
  value: JsonValue;
}

/** A read check at one path: decided at once, or once the value stored there is known. */
export interface ReadCheck {
  /** True when deciding needs the value at the path; otherwise `allows` ignores its argument. */
  readonly needsValue: boolean;
  allows(value: JsonValue): boolean;
}

/**
 * What a read was decided under. A grant decided under the same ruleset (the same compiled
 * object) and the same `request.auth` still stands: grants are not re-evaluated on data changes.
 */
export interface GrantBasis {
  ruleset: CompiledRuleset;
  auth: string;
}

const ALWAYS: ReadCheck = { needsValue: false, allows: () => true };

/** The rules one user is held to at one moment: the project's ruleset and the user's `request.auth`. */
export class CallerRules {
  /** True for the open ruleset: every check allows without looking. */
  readonly open: boolean;
  /** What grants decided now rest on; null under the open ruleset. */
  readonly basis: GrantBasis | null;

  constructor(
    readonly ruleset: CompiledRuleset,
    private readonly auth: RuleAuth | null,
    private readonly time: Date,
  ) {
    this.open = ruleset.open || auth === null;
    this.basis = this.open ? null : { ruleset, auth: JSON.stringify(auth) };
  }

  /** True when a grant decided under `basis` is still decided the same way now (data aside). */
  covers(basis: GrantBasis | null): boolean {
    if (this.open) return true;
    return basis !== null && basis.ruleset === this.ruleset && basis.auth === this.basis?.auth;
  }

  /** The read check at `path` (rules at `path` or an ancestor). */
  readCheck(path: string): ReadCheck {
    if (this.open) return ALWAYS;
    const check = this.ruleset.realtimeCheck('read', path);
    return {
      needsValue: check.readsResource,
      allows: (value) => this.decide(check, check.readsResource ? { value } : null, null),
    };
  }

  /** Whether `path` may be read; the value there is read through `valueAt` only when a rule needs it. */
  async mayRead(path: string, valueAt: ValueAt): Promise<boolean> {
    const check = this.readCheck(path);
    return check.allows(check.needsValue ? await valueAt(path) : null);
  }

  /**
   * Whether every write may be made (all or nothing): each needs `write` at its own path, with its
   * own values before and after. Writes decided without stored values are decided first, so a
   * denial among them reads nothing.
   */
  async mayWrite(writes: readonly PlannedWrite[], valueAt: ValueAt): Promise<boolean> {
    if (this.open) return true;
    const checks = writes.map((write) => ({ write, check: this.ruleset.realtimeCheck('write', write.path) }));
    const needingValues = [];
    for (const entry of checks) {
      if (entry.check.readsResource) needingValues.push(entry);
      else if (!this.decide(entry.check, null, { value: entry.write.value })) return false;
    }
    const before = await Promise.all(needingValues.map(({ write }) => valueAt(write.path)));
    return needingValues.every(({ write, check }, index) =>
      this.decide(check, { value: before[index] ?? null }, { value: write.value }),
    );
  }

  private decide(check: RuleCheck, resource: JsonValue, requestResource: JsonValue): boolean {
    const auth = this.auth as RuleAuth;
    return check.decide({ auth, time: this.time, resource, requestResource }).allowed;
  }
}

const OPEN_CALLER = new CallerRules(OPEN_RULES, null, new Date(0));

/** Where the realtime tree gets the rules of its callers. */
export class TreeRules {
  constructor(
    private readonly deps: {
      source: RulesSource;
      auth: Pick<RuleAuthLookup, 'of'>;
      clock: Clock;
    },
  ) {}

  /** The rules `userId` of the project is held to now; its `request.auth` is read only when the ruleset is not open. */
  async of(projectId: number, userId: number): Promise<CallerRules> {
    const ruleset = this.deps.source.fresh?.(projectId) ?? (await this.deps.source.compiled(projectId));
    // The open ruleset looks at nothing: no lookup, no allocation (the benchmarks run under it).
    if (ruleset.open) return OPEN_CALLER;
    const auth = await this.deps.auth.of(projectId, userId);
    return new CallerRules(ruleset, auth, new Date(this.deps.clock.now()));
  }

  /**
   * The rules a stored `request.auth` is held to under the project's ruleset now: an on-disconnect
   * write (§17) runs with the auth its user had when it was stored.
   */
  async withAuth(projectId: number, auth: RuleAuth): Promise<CallerRules> {
    const ruleset = this.deps.source.fresh?.(projectId) ?? (await this.deps.source.compiled(projectId));
    if (ruleset.open) return OPEN_CALLER;
    return new CallerRules(ruleset, auth, new Date(this.deps.clock.now()));
  }

  /** The user's `request.auth` now (remembered a few seconds). */
  authOf(projectId: number, userId: number): Promise<RuleAuth> {
    return this.deps.auth.of(projectId, userId);
  }

  /** Calls `listener` with the project id whenever a project's ruleset changes; returns a function that stops. */
  onChange(listener: (projectId: number) => void): () => void {
    return this.deps.source.onChange(listener);
  }
}
