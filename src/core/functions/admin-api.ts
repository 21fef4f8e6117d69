/**
 * `ctx.admin` (§16): the server API a function uses for its project, past the access rules. Its
 * writes are ordinary commits (versions, listeners, other instances told); its errors are
 * `HttpError`s with the §0 status and detail, as the client would have been answered.
 */
import type { DocumentService } from '../documents/document-service.js';
import type { DocumentRecord } from '../documents/document-store.js';
import type { WriteRequest } from '../documents/document-write-service.js';
import { parseVersionTags } from '../documents/document-writes.js';
import { AppError, detailOf, statusOf, type ValidationIssue } from '../errors.js';
import type { JsonObject, JsonValue } from '../json.js';
import type { LeaderboardService } from '../leaderboards/leaderboard-service.js';
import type { HistoryView } from '../leaderboards/leaderboard-views.js';
import type { TreeService } from '../realtime/tree-service.js';

const HTTP_ERROR = Symbol.for('client-data-service.http-error');

/**
 * An error of the admin API: the status and detail the client routes answer (§0). `instanceof`
 * goes by a brand, so a module's copy of the class recognises the service's errors.
 */
export class HttpError extends Error {
  readonly [HTTP_ERROR] = true;

  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((issue) => issue.msg).join('; '));
    this.name = 'HttpError';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && HTTP_ERROR in value;
  }
}

/** A write's options: §11 transforms, and `if_match` (a version, or ETags as the header takes them). */
export interface AdminWriteOptions {
  data?: JsonObject;
  transforms?: Record<string, unknown>;
  if_match?: number | string;
}

/** A query's options, as the §2 query parameters name them. */
export interface AdminQueryOptions {
  /** Clauses as the `where` parameter takes them (`level__gte=3`). */
  where?: string[];
  order_by?: string;
  limit?: number;
  parent_path?: string;
}

/** Which archived standings to read, as the history route's query parameters name them. */
export interface AdminHistoryOptions {
  /** The start of the period (ISO 8601); the latest archived period when absent. */
  period?: string;
  /** The league (default: the lowest). */
  league?: string;
  limit?: number;
  offset?: number;
}

/** A document as the admin API answers it: `{id, path, data}` and the version of its last write. */
export interface AdminDocument extends DocumentRecord {
  version: number;
}

/** The server API of one project. */
export interface AdminApi {
  documents: {
    get(path: string): Promise<(AdminDocument & { collections: string[] }) | null>;
    put(path: string, options: AdminWriteOptions & { data: JsonObject }): Promise<AdminDocument & { created: boolean }>;
    patch(path: string, options: AdminWriteOptions): Promise<AdminDocument>;
    delete(path: string): Promise<{ deleted: string; version: number }>;
    query(collection: string, options?: AdminQueryOptions): Promise<{ documents: DocumentRecord[] }>;
  };
  realtime: {
    get(path: string): Promise<JsonValue>;
    set(path: string, value: JsonValue): Promise<{ version: number }>;
    update(path: string, values: JsonObject): Promise<{ version: number }>;
    remove(path: string): Promise<{ version: number }>;
  };
  leaderboards: {
    submit(slug: string, userId: number, value: number): Promise<unknown>;
    me(slug: string, userId: number): Promise<unknown>;
    /** The final standings of an archived period (`GET /admin/projects/{id}/leaderboards/{slug}/history`; `me` is null). */
    history(slug: string, options?: AdminHistoryOptions): Promise<HistoryView>;
  };
  users: {
    get(id: number): Promise<unknown>;
  };
}

/** What the admin API reads and writes through. */
export interface AdminApiDeps {
  documents: DocumentService;
  tree: TreeService;
  leaderboards: LeaderboardService;
  users: { getUser(projectId: number, userId: number): Promise<unknown> };
}

/** Runs `work`, answering a domain error as the `HttpError` a client route would have answered. */
async function asHttp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new HttpError(statusOf[error.code], detailOf(error));
  }
}

function writeRequest(options: AdminWriteOptions): WriteRequest {
  const { transforms, if_match: ifMatch } = options;
  return {
    ...(transforms !== undefined ? { transforms } : {}),
    ...(ifMatch !== undefined ? { precondition: { ifMatch: parseVersionTags(String(ifMatch)) } } : {}),
  };
}

/** No player: the history's `me` is null. */
const NO_USER = 0;

const parsed = (json: string) => JSON.parse(json) as DocumentRecord;

/** The admin API of `projectId`. */
export function adminApi(deps: AdminApiDeps, projectId: number): AdminApi {
  const { documents, tree, leaderboards, users } = deps;
  return {
    documents: {
      get: (path) =>
        asHttp(async () => {
          try {
            const found = await documents.get(projectId, path);
            return { ...parsed(found.document), collections: found.collections, version: found.version };
          } catch (error) {
            if (error instanceof AppError && error.code === 'not_found') return null;
            throw error;
          }
        }),
      put: (path, options) => asHttp(() => documents.put(projectId, path, options.data, writeRequest(options))),
      patch: (path, options) => asHttp(() => documents.patch(projectId, path, options.data, writeRequest(options))),
      delete: (path) => asHttp(() => documents.delete(projectId, path)),
      query: (collection, options = {}) =>
        asHttp(async () => {
          const found = await documents.query(projectId, collection, {
            where: options.where ?? [],
            ...(options.order_by !== undefined ? { orderBy: options.order_by } : {}),
            ...(options.limit !== undefined ? { limit: options.limit } : {}),
            ...(options.parent_path !== undefined ? { parentPath: options.parent_path } : {}),
          });
          return { documents: found.map(parsed) };
        }),
    },
    realtime: {
      get: (path) => asHttp(async () => (await tree.get(projectId, path)).value),
      set: (path, value) => asHttp(async () => ({ version: (await tree.set(projectId, path, value)).version })),
      update: (path, values) => asHttp(async () => ({ version: (await tree.patch(projectId, path, values)).version })),
      remove: (path) => asHttp(async () => ({ version: (await tree.delete(projectId, path)).version })),
    },
    leaderboards: {
      submit: (slug, userId, value) => asHttp(() => leaderboards.submit(projectId, slug, userId, value, 'server')),
      me: (slug, userId) =>
        asHttp(async () => (await leaderboards.bundle(projectId, userId, slug, { include: ['me'] })).me),
      history: (slug, options = {}) => asHttp(() => leaderboards.history(projectId, NO_USER, slug, options)),
    },
    users: {
      get: (id) => asHttp(() => users.getUser(projectId, id)),
    },
  };
}
