/** The document store port (§2, §10, §11): what engines implement for documents; core decides. */
import type { EventRecord } from '../events/event-recording.js';
import type { JsonObject } from '../json.js';
import type { DocumentPath } from '../paths.js';
import type { ChangeLogRetention } from '../realtime/tree-store.js';
import type { OrderBy, WhereClause } from '../where.js';
import type { IndexPlan } from './indexes.js';
import type { LiveFilter } from './ttl.js';

/** A stored document as the API returns it. */
export interface DocumentRecord {
  id: string;
  path: string;
  data: JsonObject;
}

/**
 * A document's `{id, path, data}` as JSON text, built by the store from the stored JSON: lists
 * and queries hand it to the response as it is, since parsing 100 documents and serializing them
 * again would cost more than reading them.
 */
export type DocumentJson = string & { readonly documentJson: unique symbol };

/**
 * A stored document as its JSON text, with the sorted unique names of its child collections
 * (document GET, §2). The text goes to the response as it is: parsing it and serializing it again
 * cost about a tenth of a document GET's CPU (BENCHMARKS.md).
 */
export interface DocumentWithCollections {
  document: DocumentJson;
  collections: string[];
  /** The version of the document's last write (§10; its ETag, §11). */
  version: number;
}

/** A stored document with the version of its last write (§10). */
export interface StoredDocument extends DocumentRecord {
  version: number;
}

/** The commit a write belongs to: the project's new document version and the commit time (epoch ms). */
export interface DocumentCommit {
  version: number;
  time: number;
}

/**
 * What a write does to its document, as core decided it: store `data` (under `newId` when the
 * document is new, else keeping the stored id), or delete the document.
 */
export type DocumentChange = { kind: 'write'; data: JsonObject; newId: string } | { kind: 'delete' };

/**
 * One write of a commit. The engine calls `decide` inside the commit's transaction, after the
 * project's version is taken (so no other writer of the project can come between), with the
 * document as stored at that point of the commit, and applies the change it returns; `decide`
 * throws an `AppError` to refuse the write (rules, preconditions, a missing document).
 */
export interface DocumentMutation {
  path: DocumentPath;
  /**
   * Whether `decide` needs the stored document. When false it is given null and a write keeps
   * the stored id if there is one (deletes always read).
   */
  readsStored: boolean;
  /**
   * True when the stored document has expired (§17 TTL): it then counts as absent, so `decide` is
   * given null and a write stores a new document over it (a new id, `created`). The engine reads.
   */
  expired?(stored: StoredDocument): boolean;
  /**
   * The document as core read it before the commit (a `documents.write` hook was shown it; null:
   * absent). An engine may let `decide` judge on it instead of reading the document again, and
   * store the outcome only where the stored version is still this one (still absent); elsewhere
   * it reads and decides as without it.
   */
  seen?: StoredDocument | null;
  decide(stored: StoredDocument | null, commit: DocumentCommit): DocumentChange;
}

/** What one `apply` call committed: each mutation's outcome, and the commit (its version and changes). */
export interface AppliedCall {
  applied: AppliedMutation[];
  commit: DocumentCommitRecord;
}

/** What a mutation did, with the version of its commit. */
export type AppliedMutation =
  | { kind: 'written'; id: string; path: string; data: JsonObject; version: number; created: boolean }
  | { kind: 'deleted'; path: string; version: number };

/** Which direct children of a collection to list, in path order. */
export interface ListDocumentsOptions {
  parent: string;
  collection: string;
  /** Only documents whose path sorts after this full path. */
  startAfter?: string;
  limit: number;
  /** Skips this many documents first (the admin store's pages); default 0. */
  offset?: number;
}

/** One page of a sorted list of names, with how many there are in all. */
export interface NamePage {
  names: string[];
  total: number;
}

/** A filtered read of a collection (at any depth unless `parent` is given). */
export interface QueryDocumentsOptions {
  collection: string;
  /** Only direct children of this document path. */
  parent?: string;
  where: WhereClause[];
  orderBy?: OrderBy;
  /** Only documents whose path sorts after this full path (in path order, without `orderBy`). */
  startAfter?: string;
  limit?: number;
  offset?: number;
  /** The declared index to seek on (§15), chosen by `chooseIndex`; none: the path indexes. */
  index?: IndexPlan;
  /** Only documents not expired by this TTL field (§17): every read of a TTL collection. */
  live?: LiveFilter;
}

/** A query's documents and how many rows (index entries and the documents they lead to) it read. */
export interface QueryResult {
  documents: DocumentJson[];
  /**
   * The rows the query's scan visited before its filter: each is one index entry and the
   * document it points to (§15 `cds_query_rows_scanned_total`).
   */
  rowsScanned: number;
}

/** What a commit did to one document (§10): its data after the commit, null when it deleted it. */
export interface DocumentChangeEntry {
  path: string;
  id: string;
  data: JsonObject | null;
  /** Its data before the commit; null when the commit created it. */
  previous: JsonObject | null;
}

/** One commit of a project's documents (one write, or one §11 batch): its version and the documents it changed. */
export interface DocumentCommitRecord {
  version: number;
  changes: DocumentChangeEntry[];
}

/** The commits after some version that changed documents, in order, and the current version. */
export interface DocumentHistory {
  version: number;
  commits: DocumentCommitRecord[];
}

/** A query's result and the document version it reflects, read in one transaction. */
export interface QuerySnapshot {
  version: number;
  documents: DocumentJson[];
}

/** A document (null when absent) and the document version it reflects, read in one transaction. */
export interface DocumentSnapshot {
  version: number;
  document: DocumentRecord | null;
}

/** The JSON document store of every project. Each method is one atomic operation. */
export interface DocumentStore {
  /**
   * Whether a single write's `documents.write` hook (§16), when a plain function, runs inside the
   * commit on the document the commit reads (true: the engine reads in process), or before it on a
   * read of its own (false: a read inside the commit would be a round trip while the project's
   * version is held, slowing every commit of the project).
   */
  readonly hooksInCommit: boolean;
  /** The project's current document version: 0 before its first commit. */
  currentVersion(projectId: number): Promise<number>;
  /**
   * The commits after `version` (those that changed documents, in order), or null when the log
   * no longer covers them or `version` is not in 0..current.
   */
  changesSince(projectId: number, version: number): Promise<DocumentHistory | null>;
  /** `query` and the version it reflects, in one transaction. */
  querySnapshot(projectId: number, options: QueryDocumentsOptions): Promise<QuerySnapshot>;
  /** `get` and the version it reflects, in one transaction. */
  documentSnapshot(projectId: number, path: string): Promise<DocumentSnapshot>;
  /**
   * Applies the mutations in order as one commit of the project's documents (§10, §11): one new
   * version for all of them, all or none (the first `decide` that throws rejects the call with
   * its error, and it takes no version). Calls arriving together may share a transaction (a
   * group commit), each still with a version of its own, in the order they apply. The change
   * log is trimmed to `retention` (the tree's defaults when absent). Core announces the commit
   * (`DocumentCommits`); the store tells nobody.
   */
  apply(
    projectId: number,
    mutations: readonly DocumentMutation[],
    retention?: ChangeLogRetention,
    /**
     * Whether the commit records its `document.written` events in the outbox (§16), in its
     * transaction: always, or when the project has a webhook (default).
     */
    events?: EventRecord,
  ): Promise<AppliedCall>;
  /** The document at `path` and the version of its last write, or null (expired ones included: core decides). */
  get(projectId: number, path: string): Promise<StoredDocument | null>;
  /**
   * The document at `path` with `childCollections(path)` in one call (one statement on
   * PostgreSQL, which document GET needs); null when the document does not exist, even when
   * documents below it do.
   */
  getWithCollections(projectId: number, path: string): Promise<DocumentWithCollections | null>;
  /** Sorted unique names of the segment after `path/` over all documents below `path`. */
  childCollections(projectId: number, path: string): Promise<string[]>;
  /** Direct children of a collection, by path ascending. */
  list(projectId: number, options: ListDocumentsOptions): Promise<DocumentJson[]>;
  /** Documents of a collection matching every clause, by `orderBy` then path. */
  query(projectId: number, options: QueryDocumentsOptions): Promise<QueryResult>;
  /** The database's plan of `query` with these options, one line per step (§15 explain). */
  explainQuery(projectId: number, options: QueryDocumentsOptions): Promise<string[]>;
  /** A page of `childCollections(path)` (sorted names) and their count; costs what `childCollections` costs. */
  collectionNames(projectId: number, path: string, offset: number, limit: number): Promise<NamePage>;
  /** How many direct children the collection has (what `list` pages through), counted on the parent index. */
  countChildren(projectId: number, parent: string, collection: string): Promise<number>;
}
