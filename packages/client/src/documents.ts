import { CdsError } from './errors.js';
import { encodePath, type Http } from './http.js';
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

/** `doc(path)`: one document. */
export class DocumentRef {
  constructor(
    private readonly http: Http,
    readonly path: string,
  ) {}

  private get url(): string {
    return `/documents/docs/${encodePath(this.path)}`;
  }

  /** The document, or null when there is none. */
  async get(): Promise<DocumentWithCollections | null> {
    try {
      return await this.http.request<DocumentWithCollections>('GET', this.url);
    } catch (error) {
      if (error instanceof CdsError && error.status === 404 && error.detail === 'Document not found') return null;
      throw error;
    }
  }

  /** Replaces the document's data (creates it when missing). */
  set(data: JsonObject): Promise<DocumentWithCreated> {
    return this.http.request('PUT', this.url, { body: { data } });
  }

  /** Shallow-merges `data` into the document; `not-found` when there is none. */
  update(data: JsonObject): Promise<Document> {
    return this.http.request('PATCH', this.url, { body: { data } });
  }

  async delete(): Promise<void> {
    await this.http.request('DELETE', this.url);
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
  add(data: JsonObject): Promise<DocumentWithCreated> {
    const body: { data: JsonObject; parent_path?: string } = { data };
    if (this.options.parent !== undefined) body.parent_path = this.options.parent;
    return this.http.request('POST', `/documents/collections/${encodeURIComponent(this.name)}`, { body });
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
    private readonly options: CollectionOptions = {},
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
