/**
 * The client document store (§2) under the project's access rules (§9): every operation is
 * decided after the path and data checks (a value nested too deep never reaches an expression)
 * and before 404, and lists and queries return only what the caller may list. The decisions are
 * the caller's `DocumentAccess`; admins use `DocumentService` directly (rules do not apply to
 * them). Under the open ruleset each call goes straight to `DocumentService`.
 *
 * A write whose decision depends on the stored document is decided inside its commit (the
 * access's write guard), on the document as the commit sees it.
 */
import { notFound } from '../errors.js';
import type { ChildLogger, HookOrigin } from '../functions/before-hooks.js';
import type { JsonObject } from '../json.js';
import { type PathLimits, parseCollectionName, parseDocumentPath, parseParentPath } from '../paths.js';
import type { DocumentAccess, DocumentAccessSource } from '../rules/document-access.js';
import { parseOrderBy, parseWhere } from '../where.js';
import {
  type DocumentService,
  documentJsonPath,
  type ListRequest,
  parseDocumentJson,
  type QueryRequest,
} from './document-service.js';
import type { DocumentJson, DocumentStore, DocumentWithCollections } from './document-store.js';
import type { BatchResult, BatchWrite, WriteRequest } from './document-write-service.js';
import { DOCUMENT_NOT_FOUND } from './document-writes.js';

export { RULES_DENIED } from '../rules/document-access.js';

/** What a client write carries beyond its path and data (§11). */
export type ClientWriteRequest = Omit<WriteRequest, 'access'>;

/** Who a client request acts for; with the request's id and log, its writes run the project's before hook (§16). */
export interface DocumentCaller {
  projectId: number;
  userId: number;
  id?: string;
  log?: ChildLogger;
}

/** The origin a hook is told of, when the caller is a request. */
function originOf(caller: DocumentCaller): HookOrigin | undefined {
  const { id, log } = caller;
  return id !== undefined && log !== undefined ? { userId: caller.userId, requestId: id, log } : undefined;
}

/** How many documents a list or query checked document by document reads at a time. */
const CHECK_BATCH = 100;

/** The document store as a player sees it: `DocumentService` behind the rules. */
export class RuledDocumentService {
  constructor(
    private readonly documents: DocumentService,
    private readonly store: Pick<DocumentStore, 'getWithCollections'>,
    private readonly access: DocumentAccessSource,
    private readonly limits: PathLimits,
  ) {}

  async get(caller: DocumentCaller, rawPath: string): Promise<DocumentWithCollections> {
    const access = this.known(caller) ?? (await this.accessOf(caller));
    if (access.open) return this.documents.get(caller.projectId, rawPath);
    const { path } = parseDocumentPath(rawPath, this.limits);
    const found = await this.store.getWithCollections(caller.projectId, path);
    // The stored text is parsed only for a rule that reads `resource`; the others decide without it.
    access.checkGet(path, () => (found ? parseDocumentJson(found.document) : null));
    if (!found) throw notFound(DOCUMENT_NOT_FOUND);
    return found;
  }

  async put(caller: DocumentCaller, rawPath: string, data: JsonObject, request: ClientWriteRequest = {}) {
    return this.documents.put(caller.projectId, rawPath, data, {
      ...request,
      access: this.known(caller) ?? (await this.accessOf(caller)),
      origin: originOf(caller),
    });
  }

  async create(caller: DocumentCaller, rawCollection: string, rawParent: string | undefined, data: JsonObject) {
    const access = this.known(caller) ?? (await this.accessOf(caller));
    return this.documents.create(caller.projectId, rawCollection, rawParent, data, access, originOf(caller));
  }

  async patch(
    caller: DocumentCaller,
    rawPath: string,
    patch: JsonObject | undefined,
    request: ClientWriteRequest = {},
  ) {
    return this.documents.patch(caller.projectId, rawPath, patch, {
      ...request,
      access: this.known(caller) ?? (await this.accessOf(caller)),
      origin: originOf(caller),
    });
  }

  async delete(caller: DocumentCaller, rawPath: string, request: ClientWriteRequest = {}) {
    return this.documents.delete(caller.projectId, rawPath, {
      ...request,
      access: this.known(caller) ?? (await this.accessOf(caller)),
      origin: originOf(caller),
    });
  }

  /** A batch (§11): every write is checked against the rules, inside the commit when it needs the stored document. */
  async batch(caller: DocumentCaller, writes: readonly BatchWrite[]): Promise<BatchResult> {
    const access = this.known(caller) ?? (await this.accessOf(caller));
    return this.documents.batch(caller.projectId, writes, access, originOf(caller));
  }

  /** Direct children the caller may list, by path; the limit counts those only. */
  async list(caller: DocumentCaller, rawCollection: string, request: ListRequest): Promise<DocumentJson[]> {
    const access = this.known(caller) ?? (await this.accessOf(caller));
    if (access.open) return this.documents.list(caller.projectId, rawCollection, request);
    const parent = parseParentPath(request.parentPath, this.limits);
    const collection = parseCollectionName(rawCollection);
    const plan = access.listPlan(parent, collection);
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
      allowed.push(...access.filter(collection, batch));
      if (batch.length < CHECK_BATCH) break;
      startAfter = documentJsonPath(batch[batch.length - 1] as DocumentJson);
    }
    return allowed.slice(0, limit);
  }

  /** Matching documents the caller may list; `offset` and `limit` count those only. */
  async query(caller: DocumentCaller, rawCollection: string, request: QueryRequest): Promise<DocumentJson[]> {
    const access = this.known(caller) ?? (await this.accessOf(caller));
    if (access.open) return this.documents.query(caller.projectId, rawCollection, request);
    const parent = request.parentPath === undefined ? null : parseParentPath(request.parentPath, this.limits);
    const collection = parseCollectionName(rawCollection);
    const plan = access.listPlan(parent, collection);
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
      allowed.push(...access.filter(collection, batch));
      if (batch.length < CHECK_BATCH) break;
    }
    return allowed.slice(request.offset ?? 0, wanted);
  }

  /** The caller's access when the ruleset and `request.auth` are at hand: no promise, no await. */
  private known(caller: DocumentCaller): DocumentAccess | undefined {
    return this.access.cached(caller.projectId, caller.userId);
  }

  private accessOf(caller: DocumentCaller): Promise<DocumentAccess> {
    return this.access.of(caller.projectId, caller.userId);
  }
}
