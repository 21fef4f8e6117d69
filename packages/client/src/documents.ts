import type { SnapshotErrorListener, SnapshotListener } from './document-listeners.js';
import { CdsError } from './errors.js';
import { encodePath, type Http, type Tagged } from './http.js';
import type { RealtimeSocket } from './socket.js';
import { writeBody } from './transforms.js';
import type { Document, DocumentWithCollections, DocumentWithCreated, JsonObject } from './types.js';

/** A §2 lookup name. */
export type Lookup =
  | 'exact'
  | 'iexact'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in'
  | 'contains'
  | 'icontains'
  | 'startswith'
  | 'istartswith'
  | 'endswith'
  | 'iendswith'
  | 'isnull';

export type WhereValue = string | number | boolean | null | (string | number | boolean | null)[];

/** A §11 precondition: the document's version must be `ifMatch` (`'*'`: any existing one), or there must be none. */
export type WriteOptions = { ifMatch: number | '*' } | { ifAbsent: true } | Record<string, never>;

/** A document and the version of its last write (§10), read from the answer's ETag. */
export type Versioned<T> = T & { version: number };

function preconditionHeaders(options: WriteOptions | undefined): Record<string, string> {
  if (!options) return {};
  if ('ifMatch' in options) return { 'if-match': options.ifMatch === '*' ? '*' : `"${options.ifMatch}"` };
  if ('ifAbsent' in options) return { 'if-none-match': '*' };
  return {};
}

function versioned<T>(answer: Tagged<T>): Versioned<T> {
  return { ...answer.body, version: Number(answer.etag ?? 0) };
}

/** `doc(path)`: one document. */
export class DocumentRef {
  constructor(
    private readonly http: Http,
    readonly path: string,
    private readonly socket: () => RealtimeSocket,
  ) {}

  /**
   * Listens to the document over the client's socket (§10): `cb({documents, changes, version})`
   * with `documents` `[]` or `[document]`, first with the document `added`, then once per version
   * that changes it, across reconnects. `onError` gets a CdsError when the listener is refused or
   * cancelled (rules). Returns the unsubscribe function.
   */
  onSnapshot(cb: SnapshotListener, onError?: SnapshotErrorListener): () => void {
    return this.socket().listen({ doc: this.path }, undefined, cb, onError);
  }

  private get url(): string {
    return `/documents/docs/${encodePath(this.path)}`;
  }

  /** The document with its version, or null when there is none. */
  async get(): Promise<Versioned<DocumentWithCollections> | null> {
    try {
      return versioned(await this.http.tagged<DocumentWithCollections>('GET', this.url));
    } catch (error) {
      if (error instanceof CdsError && error.status === 404 && error.detail === 'Document not found') return null;
      throw error;
    }
  }

  /**
   * Replaces the document's data (creates it when missing). Values made by `increment(n)` and the
   * other transform helpers become §11 transforms. `{ifMatch: version}` / `{ifAbsent: true}`:
   * `precondition-failed` unless the document is at that version / does not exist.
   */
  async set(data: JsonObject, options?: WriteOptions): Promise<Versioned<DocumentWithCreated>> {
    const headers = preconditionHeaders(options);
    return versioned(await this.http.tagged('PUT', this.url, { body: writeBody(data, false), headers }));
  }

  /** Shallow-merges `data` (and applies its transforms); `not-found` when there is none. */
  async update(data: JsonObject, options?: WriteOptions): Promise<Versioned<Document>> {
    const headers = preconditionHeaders(options);
    return versioned(await this.http.tagged('PATCH', this.url, { body: writeBody(data, true), headers }));
  }

  async delete(options?: WriteOptions): Promise<void> {
    await this.http.request('DELETE', this.url, { headers: preconditionHeaders(options) });
  }
}

export interface CollectionOptions {
  /** The path of the parent document (even segment count); the root when omitted. */
  parent?: string;
}

/** `collection(name, {parent})`: add and list its direct documents. */
export class CollectionRef {
  constructor(
    private readonly http: Http,
    readonly name: string,
    private readonly options: CollectionOptions = {},
  ) {}

  /** A new document with a server-chosen id. */
  async add(data: JsonObject): Promise<Versioned<DocumentWithCreated>> {
    const body: { data: JsonObject; parent_path?: string } = { data };
    if (this.options.parent !== undefined) body.parent_path = this.options.parent;
    return versioned(
      await this.http.tagged('POST', `/documents/collections/${encodeURIComponent(this.name)}`, { body }),
    );
  }

  /** Every document, by path, fetched `pageSize` at a time (`start_after` pages). */
  async *list(options: { pageSize?: number } = {}): AsyncIterableIterator<Document> {
    const limit = options.pageSize ?? 100;
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.http.request<{ documents: Document[] }>(
        'GET',
        `/documents/collections/${encodeURIComponent(this.name)}`,
        { query: { parent_path: this.options.parent, limit, start_after: startAfter } },
      );
      yield* page.documents;
      const last = page.documents.at(-1);
      if (!last || page.documents.length < limit) return;
      startAfter = last.path;
    }
  }
}

/** `query(collection, {parent})`: a §2 query built clause by clause. */
export class Query {
  private readonly clauses: string[] = [];
  private order: string | undefined;
  private max: number | undefined;
  private skip: number | undefined;

  constructor(
    private readonly http: Http,
    readonly collection: string,
    private readonly options: CollectionOptions,
    private readonly socket: () => RealtimeSocket,
  ) {}

  /** Adds `field__lookup:value`; nested fields use `.` (or `__`). */
  where(field: string, lookup: Lookup, value: WhereValue): this {
    this.clauses.push(`${fieldName(field)}__${lookup}:${encodeValue(value)}`);
    return this;
  }

  orderBy(field: string, direction: 'asc' | 'desc' = 'asc'): this {
    this.order = `${direction === 'desc' ? '-' : ''}${fieldName(field)}`;
    return this;
  }

  limit(n: number): this {
    this.max = n;
    return this;
  }

  offset(n: number): this {
    this.skip = n;
    return this;
  }

  /**
   * Listens to the query's result over the client's socket (§10; no `offset`): `cb({documents,
   * changes, version})` with the result in query order, first all `added`, then once per version
   * that changes it (with `limit`, a document pushed out of the window is `removed`), across
   * reconnects. `onError` gets a CdsError when the listener is refused. Returns the unsubscribe function.
   */
  onSnapshot(cb: SnapshotListener, onError?: SnapshotErrorListener): () => void {
    if (this.skip !== undefined) throw new CdsError(400, 'A listener takes no offset', 'invalid-argument');
    const target: Record<string, unknown> = { collection: this.collection };
    if (this.options.parent !== undefined) target.parent_path = this.options.parent;
    if (this.clauses.length > 0) target.where = [...this.clauses];
    if (this.order !== undefined) target.order_by = this.order;
    if (this.max !== undefined) target.limit = this.max;
    return this.socket().listen(target, this.order, cb, onError);
  }

  async get(): Promise<Document[]> {
    const query = {
      where: this.clauses,
      parent_path: this.options.parent,
      order_by: this.order,
      limit: this.max,
      offset: this.skip,
    };
    const url = `/documents/query/${encodeURIComponent(this.collection)}`;
    return (await this.http.request<{ documents: Document[] }>('GET', url, { query })).documents;
  }
}

function fieldName(field: string): string {
  return field.split('.').join('__');
}

/** The text the server coerces back to `value` (§2 coercion); `in` takes a list. */
function encodeValue(value: WhereValue): string {
  return Array.isArray(value) ? value.map((v) => String(v)).join(',') : String(value);
}
