/**
 * The client document store (§2) under the project's access rules (§9): every operation is
 * decided after the path and data checks (a value nested too deep never reaches an expression) and before 404, and lists and queries return only what the caller
 * may list. Admins use `DocumentService` directly (rules do not apply to them). Under the open
 * ruleset each call goes straight to `DocumentService`.
 *
 * A write whose decision depends on the stored document is decided inside its commit (see
 * `WriteRules`), on the document as the commit sees it.
 */
import type { Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import type { JsonObject, JsonValue } from '../json.js';
import { type PathLimits, parseCollectionName, parseDocumentPath, parseParentPath } from '../paths.js';
import type { CompiledRuleset, DocumentMethod, RuleAuth, RuleCheck } from '../rules/compiled-ruleset.js';
import { type ListPlan, planList } from '../rules/list-plan.js';
import type { RuleAuthLookup } from '../rules/rule-auth.js';
import type { RulesSource } from '../rules/rules-source.js';
import { parseOrderBy, parseWhere } from '../where.js';
import {
  type DocumentService,
  documentJsonPath,
  type ListRequest,
  parseDocumentJson,
  type QueryRequest,
} from './document-service.js';
import type { DocumentJson, DocumentRecord, DocumentStore, DocumentWithCollections } from './document-store.js';
import type { BatchResult, BatchWrite, WriteRequest, WriteRules } from './document-write-service.js';
import { DOCUMENT_NOT_FOUND } from './document-writes.js';

/** What a client write carries beyond its path and data (§11). */
export type ClientWriteRequest = Omit<WriteRequest, 'rules'>;

/** Who a client request acts for. */
export interface DocumentCaller {
  projectId: number;
  userId: number;
}

export const RULES_DENIED = 'Permission denied by rules';
const denied = () => new AppError('forbidden', RULES_DENIED);
/** How many documents a list or query checked document by document reads at a time. */
const CHECK_BATCH = 100;

/** The parent document path of a document path (`''` at the root). */
function parentOf(path: string): string {
  const collectionSlash = path.lastIndexOf('/', path.lastIndexOf('/') - 1);
  return collectionSlash < 0 ? '' : path.slice(0, collectionSlash);
}

const asResource = (record: DocumentRecord | null): JsonValue =>
  record ? { id: record.id, path: record.path, data: record.data } : null;

/** The document store as a player sees it: `DocumentService` behind the rules. */
export class RuledDocumentService {
  constructor(
    private readonly documents: DocumentService,
    private readonly store: Pick<DocumentStore, 'getWithCollections'>,
    private readonly rules: RulesSource,
    private readonly auth: RuleAuthLookup,
    private readonly clock: Clock,
    private readonly limits: PathLimits,
  ) {}

  async get(caller: DocumentCaller, rawPath: string): Promise<DocumentWithCollections> {
    const rules = this.rules.fresh?.(caller.projectId) ?? (await this.rules.compiled(caller.projectId));
    if (rules.open) return this.documents.get(caller.projectId, rawPath);
    const { path } = parseDocumentPath(rawPath, this.limits);
    const check = this.checkOrDeny(rules, 'get', path);
    const auth =
      this.auth.cached(caller.projectId, caller.userId) ?? (await this.auth.of(caller.projectId, caller.userId));
    const found = await this.store.getWithCollections(caller.projectId, path);
    // The stored text is parsed only for a rule that reads `resource`; the others decide without it.
    const resource = found && check.readsResource ? asResource(parseDocumentJson(found.document)) : null;
    if (!check.decide(this.facts(auth, resource, null)).allowed) throw denied();
    if (!found) throw notFound(DOCUMENT_NOT_FOUND);
    return found;
  }

  async put(caller: DocumentCaller, rawPath: string, data: JsonObject, request: ClientWriteRequest = {}) {
    return this.documents.put(caller.projectId, rawPath, data, { ...request, rules: await this.writeRules(caller) });
  }

  async create(caller: DocumentCaller, rawCollection: string, rawParent: string | undefined, data: JsonObject) {
    const rules = await this.writeRules(caller);
    return this.documents.create(caller.projectId, rawCollection, rawParent, data, rules);
  }

  async patch(
    caller: DocumentCaller,
    rawPath: string,
    patch: JsonObject | undefined,
    request: ClientWriteRequest = {},
  ) {
    return this.documents.patch(caller.projectId, rawPath, patch, { ...request, rules: await this.writeRules(caller) });
  }

  async delete(caller: DocumentCaller, rawPath: string, request: ClientWriteRequest = {}) {
    return this.documents.delete(caller.projectId, rawPath, { ...request, rules: await this.writeRules(caller) });
  }

  /** A batch (§11): every write is checked against the rules, inside the commit when it needs the stored document. */
  async batch(caller: DocumentCaller, writes: readonly BatchWrite[]): Promise<BatchResult> {
    return this.documents.batch(caller.projectId, writes, await this.writeRules(caller));
  }

  /**
   * The rules of the caller's writes; null under the open ruleset. Whether a write needs the
   * stored document is decided per write: when it does, the check runs inside the write's commit
   * on the document as stored there, so no concurrent write can come between check and write.
   */
  private async writeRules(caller: DocumentCaller): Promise<WriteRules | null> {
    const rules = this.rules.fresh?.(caller.projectId) ?? (await this.rules.compiled(caller.projectId));
    if (rules.open) return null;
    const auth =
      this.auth.cached(caller.projectId, caller.userId) ?? (await this.auth.of(caller.projectId, caller.userId));
    const decide = (check: RuleCheck, resource: JsonValue, after: JsonValue) =>
      check.decide(this.facts(auth, resource, after)).allowed;
    return {
      plan: (op, path, after) => {
        const target = after ? { id: after.id, path: after.path, data: after.data } : null;
        if (op === 'create') {
          if (!decide(this.checkOrDeny(rules, 'create', path.path), null, target)) throw denied();
          return null;
        }
        if (op === 'put') {
          const create = rules.documentCheck('create', path.path);
          const update = rules.documentCheck('update', path.path);
          // Whether the document exists decides which check applies; read it only when that matters.
          const mayCreate = decide(create, null, target);
          const mayUpdateBlind = update.readsResource ? null : decide(update, null, target);
          if (mayCreate === mayUpdateBlind) {
            if (!mayCreate) throw denied();
            return null;
          }
          return (stored, written) => {
            const allowed = stored
              ? decide(update, asResource(stored), { id: stored.id, path: path.path, data: written?.data ?? {} })
              : mayCreate;
            if (!allowed) throw denied();
          };
        }
        const check = this.checkOrDeny(rules, op === 'patch' ? 'update' : 'delete', path.path);
        if (op === 'delete' && !check.readsResource) {
          if (!decide(check, null, null)) throw denied();
          return null;
        }
        return (stored, written) => {
          if (!decide(check, asResource(stored), written ? { ...written } : null)) throw denied();
        };
      },
    };
  }

  /** Direct children the caller may list, by path; the limit counts those only. */
  async list(caller: DocumentCaller, rawCollection: string, request: ListRequest): Promise<DocumentJson[]> {
    const rules = this.rules.fresh?.(caller.projectId) ?? (await this.rules.compiled(caller.projectId));
    if (rules.open) return this.documents.list(caller.projectId, rawCollection, request);
    const parent = parseParentPath(request.parentPath, this.limits);
    const collection = parseCollectionName(rawCollection);
    const auth =
      this.auth.cached(caller.projectId, caller.userId) ?? (await this.auth.of(caller.projectId, caller.userId));
    const plan = planList(rules, parent, collection, { auth, time: new Date(this.clock.now()) });
    if (plan.kind === 'all') return this.documents.list(caller.projectId, rawCollection, request);
    if (plan.kind === 'where') return this.documents.list(caller.projectId, rawCollection, request, plan.clauses);
    if (plan.kind === 'none') return [];
    const limit = request.limit ?? 20;
    const allowed: DocumentJson[] = [];
    let startAfter = request.startAfter;
    while (allowed.length < limit) {
      const batch = await this.documents.list(caller.projectId, rawCollection, {
        ...request,
        startAfter,
        limit: CHECK_BATCH,
      });
      allowed.push(...this.listable(rules, auth, collection, batch));
      if (batch.length < CHECK_BATCH) break;
      startAfter = documentJsonPath(batch[batch.length - 1] as DocumentJson);
    }
    return allowed.slice(0, limit);
  }

  /** Matching documents the caller may list; `offset` and `limit` count those only. */
  async query(caller: DocumentCaller, rawCollection: string, request: QueryRequest): Promise<DocumentJson[]> {
    const rules = this.rules.fresh?.(caller.projectId) ?? (await this.rules.compiled(caller.projectId));
    if (rules.open) return this.documents.query(caller.projectId, rawCollection, request);
    const parent = request.parentPath === undefined ? null : parseParentPath(request.parentPath, this.limits);
    const collection = parseCollectionName(rawCollection);
    const auth =
      this.auth.cached(caller.projectId, caller.userId) ?? (await this.auth.of(caller.projectId, caller.userId));
    const plan = planList(rules, parent, collection, { auth, time: new Date(this.clock.now()) });
    if (plan.kind === 'all') return this.documents.query(caller.projectId, rawCollection, request);
    if (plan.kind === 'where') return this.documents.query(caller.projectId, rawCollection, request, plan.clauses);
    if (plan.kind === 'none') {
      // The request's clauses are still checked, so a bad one is a 400 whatever the rules.
      parseWhere(request.where);
      if (request.orderBy) parseOrderBy(request.orderBy);
      return [];
    }
    const wanted = (request.offset ?? 0) + (request.limit ?? Number.POSITIVE_INFINITY);
    const allowed: DocumentJson[] = [];
    for (let offset = 0; allowed.length < wanted; offset += CHECK_BATCH) {
      const batch = await this.documents.query(caller.projectId, rawCollection, {
        ...request,
        offset,
        limit: CHECK_BATCH,
      });
      allowed.push(...this.listable(rules, auth, collection, batch));
      if (batch.length < CHECK_BATCH) break;
    }
    return allowed.slice(request.offset ?? 0, wanted);
  }

  /**
   * The documents of `batch` the caller may list. Documents of one parent share a plan, made once
   * per parent; only those whose plan depends on the document itself are parsed and checked.
   */
  private listable(rules: CompiledRuleset, auth: RuleAuth, collection: string, batch: readonly DocumentJson[]) {
    const plans = new Map<string, ListPlan>();
    const time = new Date(this.clock.now());
    return batch.filter((json) => {
      const path = documentJsonPath(json);
      const parent = parentOf(path);
      let plan = plans.get(parent);
      if (!plan) {
        plan = planList(rules, parent, collection, { auth, time });
        plans.set(parent, plan);
      }
      if (plan.kind !== 'where' && plan.kind !== 'each') return plan.kind === 'all';
      const record = parseDocumentJson(json);
      return rules.documentCheck('list', path).decide(this.facts(auth, asResource(record), null)).allowed;
    });
  }

  /** The check of an operation; denied at once when no rule of the path grants it. */
  private checkOrDeny(rules: CompiledRuleset, method: DocumentMethod, path: string): RuleCheck {
    const check = rules.documentCheck(method, path);
    if (check.candidates.length === 0) throw denied();
    return check;
  }

  private facts(auth: RuleAuth, resource: JsonValue, requestResource: JsonValue) {
    return { auth, time: new Date(this.clock.now()), resource, requestResource };
  }
}
