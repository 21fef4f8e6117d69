/**
 * The access rules (§9) of documents for one caller at one moment: the only place that turns
 * rules into decisions about documents. The REST routes, document listeners, the admin rules test
 * and the rules tester each build one per caller and request (`DocumentAccessSource`) and ask it.
 * An access without a user (an admin, an import) or under the open ruleset allows everything.
 */
import type { Clock } from '../clock.js';
import { documentJsonPath, parseDocumentJson } from '../documents/document-service.js';
import type { DocumentJson, DocumentRecord } from '../documents/document-store.js';
import type { WriteGuard } from '../documents/document-writes.js';
import { AppError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { DocumentPath } from '../paths.js';
import type { CompiledRuleset, DocumentMethod, RuleAuth, RuleCheck, RuleDecision } from './compiled-ruleset.js';
import { type ListPlan, planList } from './list-plan.js';
import type { RuleAuthLookup } from './rule-auth.js';
import type { RulesSource } from './rules-source.js';

export const RULES_DENIED = 'Permission denied by rules';
export const rulesDenied = (): AppError => new AppError('forbidden', RULES_DENIED);

/** A document write as the rules see it (§11 batches name theirs the same). */
export type WriteOp = 'put' | 'create' | 'patch' | 'delete';

const asResource = (record: DocumentRecord | null): JsonValue =>
  record ? { id: record.id, path: record.path, data: record.data } : null;

/** The parent document path of a document path (`''` at the root). */
function parentOf(path: string): string {
  const collectionSlash = path.lastIndexOf('/', path.lastIndexOf('/') - 1);
  return collectionSlash < 0 ? '' : path.slice(0, collectionSlash);
}

/** The rules of one caller at one moment; see the module comment. */
export class DocumentAccess {
  /** True when nothing is checked: the open ruleset, or no user. */
  readonly open: boolean;
  private basisText: string | undefined;

  constructor(
    readonly ruleset: CompiledRuleset,
    /** The caller's `request.auth`; null for a trusted caller (no user). */
    readonly auth: RuleAuth | null,
    readonly time: Date,
  ) {
    this.open = ruleset.open || auth === null;
  }

  /** What decisions rest on: the same ruleset object and the same basis decide the same. */
  get basis(): string {
    this.basisText ??= this.open ? 'open' : JSON.stringify(this.auth);
    return this.basisText;
  }

  /** The decision of `method` at `path` with the stored document and the one a write leaves. */
  decide(method: DocumentMethod, path: string, stored: DocumentRecord | null, after: DocumentRecord | null) {
    return this.decideCheck(this.ruleset.documentCheck(method, path), stored, after);
  }

  /** Whether the caller may `get` the document at `path` (null: absent). */
  mayGet(path: string, document: DocumentRecord | null): boolean {
    return this.open || this.decide('get', path, document, null).allowed;
  }

  /** Whether the caller may `list` the document (a query's result shows it). */
  mayList(document: DocumentRecord): boolean {
    return this.open || this.decide('list', document.path, document, null).allowed;
  }

  /**
   * A GET's decision, reading the stored document only for a rule that needs it: 403 when no
   * rule of the path grants `get`, or when the one that may does not.
   */
  checkGet(path: string, stored: () => DocumentRecord | null): void {
    if (this.open) return;
    const check = this.checkOrDeny('get', path);
    if (!this.decideCheck(check, check.readsResource ? stored() : null, null).allowed) throw rulesDenied();
  }

  /**
   * How a list or query of `collection` under `parent` (a document path, `''` for the root; null
   * for a query at any depth) returns only what the caller may list.
   */
  listPlan(parent: string | null, collection: string): ListPlan {
    if (this.open || this.auth === null) return { kind: 'all' };
    return planList(this.ruleset, parent, collection, { auth: this.auth, time: this.time });
  }

  /**
   * The documents of `batch` the caller may list. Documents of one parent share a plan, made once
   * per parent; only those whose plan depends on the document itself are read and checked.
   */
  filter(collection: string, batch: readonly DocumentJson[]): DocumentJson[] {
    if (this.open) return [...batch];
    const plans = new Map<string, ListPlan>();
    return batch.filter((json) => {
      const path = documentJsonPath(json);
      const parent = parentOf(path);
      let plan = plans.get(parent);
      if (!plan) {
        plan = this.listPlan(parent, collection);
        plans.set(parent, plan);
      }
      if (plan.kind !== 'where' && plan.kind !== 'each') return plan.kind === 'all';
      return this.mayList(parseDocumentJson(json));
    });
  }

  /**
   * The rules of a write of `op` at `path`: null when it is allowed whatever is stored; a guard to
   * run inside the commit, on the document as stored there, when the decision needs it; 403 at
   * once when it is denied whatever is stored. `after` is the document as the write leaves it
   * when that does not depend on what is stored (put, create), else null.
   */
  writeGuard(op: WriteOp, path: DocumentPath, after: DocumentRecord | null): WriteGuard | null {
    if (this.open) return null;
    const target = after ? { id: after.id, path: after.path, data: after.data } : null;
    if (op === 'create') {
      if (!this.decideCheck(this.checkOrDeny('create', path.path), null, target).allowed) throw rulesDenied();
      return null;
    }
    if (op === 'put') {
      const create = this.ruleset.documentCheck('create', path.path);
      const update = this.ruleset.documentCheck('update', path.path);
      // Whether the document exists decides which check applies; read it only when that matters.
      const mayCreate = this.decideCheck(create, null, target).allowed;
      const mayUpdateBlind = update.readsResource ? null : this.decideCheck(update, null, target).allowed;
      if (mayCreate === mayUpdateBlind) {
        if (!mayCreate) throw rulesDenied();
        return null;
      }
      return (stored, written) => {
        const allowed = stored
          ? this.decideCheck(update, stored, { id: stored.id, path: path.path, data: written?.data ?? {} }).allowed
          : mayCreate;
        if (!allowed) throw rulesDenied();
      };
    }
    const check = this.checkOrDeny(op === 'patch' ? 'update' : 'delete', path.path);
    if (op === 'delete' && !check.readsResource) {
      if (!this.decideCheck(check, null, null).allowed) throw rulesDenied();
      return null;
    }
    return (stored, written) => {
      if (!this.decideCheck(check, stored, written).allowed) throw rulesDenied();
    };
  }

  /** The check of an operation; denied at once when no rule of the path grants it. */
  private checkOrDeny(method: DocumentMethod, path: string): RuleCheck {
    const check = this.ruleset.documentCheck(method, path);
    if (check.candidates.length === 0) throw rulesDenied();
    return check;
  }

  private decideCheck(check: RuleCheck, stored: DocumentRecord | null, after: DocumentRecord | null): RuleDecision {
    if (this.auth === null) return { allowed: true, rule: null };
    return check.decide({
      auth: this.auth,
      time: this.time,
      resource: asResource(stored),
      requestResource: asResource(after),
    });
  }
}

/** The time of an access that checks nothing (admins, imports, the open ruleset): never read. */
const UNCHECKED_TIME = new Date(0);

/**
 * Builds a caller's `DocumentAccess`: the project's ruleset and the user's `request.auth`, each
 * looked up once per request.
 */
export class DocumentAccessSource {
  constructor(
    private readonly rules: RulesSource,
    private readonly auth: Pick<RuleAuthLookup, 'of' | 'cached'>,
    private readonly clock: Clock,
  ) {}

  /**
   * The access of `userId` (none: a trusted caller) when the ruleset and `request.auth` are at
   * hand, without a promise: every client request asks, and an await costs more than the check.
   */
  cached(projectId: number, userId?: number): DocumentAccess | undefined {
    const ruleset = this.rules.fresh?.(projectId);
    if (!ruleset) return undefined;
    if (ruleset.open || userId === undefined) return new DocumentAccess(ruleset, null, UNCHECKED_TIME);
    const auth = this.auth.cached(projectId, userId);
    return auth ? new DocumentAccess(ruleset, auth, new Date(this.clock.now())) : undefined;
  }

  /** The access of `userId` (none: a trusted caller), reading what is not at hand. */
  async of(projectId: number, userId?: number): Promise<DocumentAccess> {
    const cached = this.cached(projectId, userId);
    if (cached) return cached;
    const ruleset = await this.rules.compiled(projectId);
    if (ruleset.open || userId === undefined) return new DocumentAccess(ruleset, null, UNCHECKED_TIME);
    return new DocumentAccess(ruleset, await this.auth.of(projectId, userId), new Date(this.clock.now()));
  }

  /** Calls `listener` with the project id whenever a project's ruleset changes. */
  onRulesChange(listener: (projectId: number) => void): () => void {
    return this.rules.onChange(listener);
  }
}
