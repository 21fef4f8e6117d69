/**
 * The interfaces the domain needs from the outside world. Storage engines (`src/storage/*`)
 * implement them; `src/app.ts` picks the implementations. Nothing here knows SQL or HTTP.
 */
import type { AdminRole } from './admin/admin-permissions.js';
import type { DocumentIndex, IndexField, IndexPlan, IndexState } from './documents/indexes.js';
import type { JsonObject, JsonValue } from './json.js';
import type {
  Leaderboard,
  LeaderboardDefinition,
  LeaderboardEntry,
  Period,
  Standing,
} from './leaderboards/leaderboard-model.js';
import type { ArchivedStanding, ListingRewrite, ResetBoard } from './leaderboards/listing-rewrite.js';
import type { RankKey } from './leaderboards/rank-order.js';
import type { DocumentPath } from './paths.js';
import type { RulesRevision, RulesStore } from './rules/rules-store.js';
import type { Ruleset } from './rules/ruleset.js';
import type { ImportedIndex, ProjectExport } from './transfer/export-format.js';
import type { ImportFound, ImportLookup, ImportRows } from './transfer/import-plan.js';
import type { OrderBy, WhereClause } from './where.js';

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

/** A stored document with the sorted unique names of its child collections (document GET, §2). */
export interface DocumentWithCollections extends DocumentRecord {
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
  decide(stored: StoredDocument | null, commit: DocumentCommit): DocumentChange;
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

/** One commit of a project's documents: its version and the documents it changed (none when every write was refused). */
export interface DocumentCommitRecord {
  version: number;
  changes: DocumentChangeEntry[];
}

/** A committed commit as the store reports it after COMMIT (and the bus carries it, §10). */
export interface DocumentCommitEvent extends DocumentCommitRecord {
  projectId: number;
}

/** The commits after some version that changed documents, in order, and the current version. */
export interface DocumentHistory {
  version: number;
  commits: DocumentCommitRecord[];
}

/** What the store keeps of each commit and whom it tells (§10): set once by the composition root. */
export interface DocumentChangeLog {
  retention: ChangeLogRetention;
  /** Called after each commit, once per project it bumped (changes may be empty), in commit order. */
  onCommit?: (event: DocumentCommitEvent) => void;
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
   * Sets the change log's retention and the commit listener (§10). Until called, the tree's
   * defaults apply and nobody is told.
   */
  configureChangeLog(log: DocumentChangeLog): void;
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
   * its error). Writes arriving together may share a commit with other calls.
   */
  apply(projectId: number, mutations: readonly DocumentMutation[]): Promise<AppliedMutation[]>;
  /** Inserts or replaces the document at `path`; `created` tells which happened. */
  upsert(projectId: number, path: DocumentPath, data: JsonObject): Promise<DocumentRecord & { created: boolean }>;
  /** Inserts a new document with the given id; the path is new (its last segment is the id). */
  insert(projectId: number, path: DocumentPath, id: string, data: JsonObject): Promise<DocumentRecord>;
  /** The document at `path`, or null. */
  get(projectId: number, path: string): Promise<DocumentRecord | null>;
  /**
   * The document at `path` with `childCollections(path)` in one call (one statement on
   * PostgreSQL, which document GET needs); null when the document does not exist, even when
   * documents below it do.
   */
  getWithCollections(projectId: number, path: string): Promise<DocumentWithCollections | null>;
  /** Sorted unique names of the segment after `path/` over all documents below `path`. */
  childCollections(projectId: number, path: string): Promise<string[]>;
  /** Shallow-merges `patch` into the stored data; null when the document does not exist. */
  merge(projectId: number, path: string, patch: JsonObject): Promise<DocumentRecord | null>;
  /** Deletes only that document; false when it did not exist. */
  delete(projectId: number, path: string): Promise<boolean>;
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

/** An organisation, owner of projects. */
export interface Organisation {
  id: number;
  name: string;
}

/** A project: the unit of isolation of all client data. */
export interface Project {
  id: number;
  orgId: number;
  name: string;
}

/** A player of a project, without secrets. */
export interface User {
  id: number;
  projectId: number;
  username: string;
  nickname: string;
  avatarUrl: string | null;
  roles: string[];
  /** A disabled user cannot sign in, refresh or use a token (§9, §13). */
  disabled: boolean;
  /**
   * Moves on at every disable. Access tokens carry the epoch they were issued under and are
   * refused once it is not the user's current one, so re-enabling revives no older token.
   */
  tokenEpoch: number;
}

/** What the check of every client request needs to know about its user (cached a few seconds). */
export interface UserAccess {
  /** Union of the permissions of the user's roles. */
  permissions: string[];
  disabled: boolean;
  tokenEpoch: number;
}

/** The public part of a user that leaderboards show. */
export interface UserProfile {
  nickname: string;
  avatarUrl: string | null;
}

/** A user together with the stored password hash (null when none was set). */
export interface UserWithPassword extends User {
  passwordHash: string | null;
}

/** What a new user is created with. */
export interface NewUser {
  username: string;
  passwordHash: string | null;
  nickname: string;
  avatarUrl?: string | null;
  roles: string[];
  /** Binds a guest account to a device. */
  deviceId?: string;
}

/** A role: a named set of permissions within a project. */
export interface Role {
  name: string;
  permissions: string[];
}

/** Organisations, projects, clients, users, roles and refresh tokens. */
export interface AccountStore {
  /** The organisation of that name, created when missing; `created` tells which happened. */
  ensureOrganisation(name: string): Promise<Organisation & { created: boolean }>;
  /** Creates a project with the default `player` role. */
  createProject(orgId: number, name: string, defaultRole: Role): Promise<Project>;
  getProject(projectId: number): Promise<Project | null>;
  /** Registers a client of a project; only the secret's hash is stored. */
  createClient(projectId: number, clientId: string, secretHash: string): Promise<void>;
  /** The project and secret hash of a client id, or null. */
  findClient(clientId: string): Promise<{ projectId: number; secretHash: string } | null>;
  /** Creates a user; throws `conflict` when the username is taken. */
  createUser(projectId: number, user: NewUser): Promise<User>;
  /** The user bound to the device, created by `user` when missing (atomically). */
  ensureGuest(projectId: number, user: NewUser & { deviceId: string }): Promise<User>;
  findUserByUsername(projectId: number, username: string): Promise<UserWithPassword | null>;
  findUserById(projectId: number, userId: number): Promise<User | null>;
  /** The public profiles of those users that exist (leaderboard listings). */
  profilesOf(projectId: number, userIds: readonly number[]): Promise<Map<number, UserProfile>>;
  /** Updates the profile fields given; null when the user does not exist. */
  updateProfile(
    projectId: number,
    userId: number,
    profile: { nickname?: string; avatarUrl?: string | null },
  ): Promise<User | null>;
  setUserRoles(projectId: number, userId: number, roles: string[]): Promise<void>;
  /** Creates or replaces a role. */
  upsertRole(projectId: number, role: Role): Promise<void>;
  /** The roles of a project, by name. */
  listRoles(projectId: number): Promise<Role[]>;
  /** Union of the permissions of the user's roles; null when the user does not exist. */
  permissionsOf(projectId: number, userId: number): Promise<string[] | null>;
  /** Permissions, disabled flag and token epoch of a user in one read; null when the user does not exist. */
  accessOf(projectId: number, userId: number): Promise<UserAccess | null>;
  /**
   * Enables or disables a user. Disabling also moves the token epoch on and drops the user's
   * refresh tokens, in one transaction. Null when the user does not exist.
   */
  setUserDisabled(projectId: number, userId: number, disabled: boolean): Promise<User | null>;
  /** Stores a new refresh token's hash (and drops the user's expired ones). */
  saveRefreshToken(tokenHash: string, projectId: number, userId: number, expiresAt: Date): Promise<void>;
  /** Removes a refresh token of the project and returns its user id when it had not expired; null otherwise. */
  consumeRefreshToken(projectId: number, tokenHash: string, now: Date): Promise<number | null>;
  /** True when no organisation exists yet (first start). */
  isEmpty(): Promise<boolean>;
}

/** An administrator: a member of one organisation with a role (§6). */
export interface Admin {
  id: number;
  orgId: number;
  /** Normalized (trimmed, lower case); unique over all organisations. */
  email: string;
  role: AdminRole;
}

/** An admin with the stored password hash. */
export interface AdminWithPassword extends Admin {
  passwordHash: string;
}

/** A client of a project, without its secret. */
export interface ClientInfo {
  clientId: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** Admins, and the organisation-wide reads and client changes of the admin API (§6). */
export interface AdminStore {
  /** Creates an admin; throws `conflict` when the email is taken. */
  createAdmin(orgId: number, email: string, passwordHash: string, role: AdminRole): Promise<Admin>;
  findAdminByEmail(email: string): Promise<AdminWithPassword | null>;
  findAdminById(adminId: number): Promise<Admin | null>;
  getOrganisation(orgId: number): Promise<Organisation | null>;
  /** The projects of an organisation, by id. */
  listProjects(orgId: number): Promise<Project[]>;
  /** Users of a project by id, `limit` from `offset`. */
  listUsers(projectId: number, offset: number, limit: number): Promise<User[]>;
  countUsers(projectId: number): Promise<number>;
  /** The clients of a project, oldest first. */
  listClients(projectId: number): Promise<ClientInfo[]>;
  /** Replaces the secret hash of a client of that project; false when it has no such client. */
  replaceClientSecret(projectId: number, clientId: string, secretHash: string): Promise<boolean>;
}

/** The admin role of a server key: never `owner` (a key cannot manage projects or clients). */
export type ServerKeyRole = Exclude<AdminRole, 'owner'>;

/** A server key of a project (§9), without its secret. */
export interface ServerKey {
  id: number;
  projectId: number;
  name: string;
  role: ServerKeyRole;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** A live server key with the organisation of its project, as a key lookup finds it. */
export interface ServerKeyGrant extends ServerKey {
  orgId: number;
}

/** Server keys of game servers (§9), stored as SHA-256 hashes of the keys only. */
export interface ServerKeyStore {
  create(projectId: number, name: string, role: ServerKeyRole, keyHash: string): Promise<ServerKey>;
  /** The project's keys that are not revoked, by id. */
  list(projectId: number): Promise<ServerKey[]>;
  /** Revokes a live key of the project; false when it has no such key (or it was revoked). */
  revoke(projectId: number, keyId: number): Promise<boolean>;
  /** The live key with that hash, or null (unknown or revoked). */
  findByHash(keyHash: string): Promise<ServerKeyGrant | null>;
}

/** One leaf of the realtime tree: a non-object JSON value stored whole at its path. */
export interface TreeLeaf {
  path: string;
  value: JsonValue;
}

/** One child set of a tree write: the subtree at `path` becomes `value`. */
export interface TreeSet {
  path: string;
  /** The stored form of the value (null deletes): what readers and subscribers see. */
  value: JsonValue;
  /** The flattening of `value`: empty for a delete. */
  leaves: TreeLeaf[];
}

/** What a write did at one path: the new value there (null after a delete). */
export interface TreeChange {
  path: string;
  value: JsonValue;
}

/**
 * Core's part of a tree write decided inside its transaction (§11): the engine reads the values
 * at `reads` after taking the project's version, and applies the sets `resolve` returns in place
 * of the write's own (`resolve` throws to refuse the write: nothing is committed).
 */
export interface TreeWriteHook {
  reads: readonly string[];
  resolve(current: ReadonlyMap<string, JsonValue>, time: number): TreeSet[];
}

/** A committed write: the project version it took and its changes in the order applied. */
export interface TreeCommit {
  version: number;
  changes: TreeChange[];
}

/** One tree write of a batch (§3): its sets, applied at the project's next version. */
export interface TreeWrite {
  projectId: number;
  sets: TreeSet[];
  /** Decides the sets inside the commit (§11); throwing refuses this write alone. */
  hook?: TreeWriteHook;
  /** A path whose value as this write leaves it the outcome reports (a PATCH's merged value). */
  readBack: string | null;
}

/** How one write of a batch ended: committed at its own version, or refused alone. */
export type TreeWriteOutcome = { ok: true; commit: TreeCommit & { value: JsonValue } } | { ok: false; error: unknown };

/** A subtree and the project version it reflects, read in one transaction. */
export interface TreeSnapshot {
  value: JsonValue;
  version: number;
}

/** The commits after some version (those with changes, in order) and the current version. */
export interface TreeHistory {
  version: number;
  commits: TreeCommit[];
}

/** How much change log a write keeps: the last `maxWrites` commits, none older than `maxAgeMs`. */
export interface ChangeLogRetention {
  maxWrites: number;
  maxAgeMs: number;
}

/**
 * The realtime tree of every project (§3): one row per leaf keyed by its path, a version
 * counter per project and a bounded change log (§4). Each write takes the project's next version
 * (consecutive; concurrent writes of a project are serialized), applies its sets, appends them to
 * the log and trims the log to `retention`; `commit` does this for many writes in one transaction.
 */
export interface TreeStore {
  /**
   * Replaces the subtree at `set.path`; when it has leaves, ancestors holding a leaf become objects.
   * Each write takes an optional `hook` (§11) run inside its transaction.
   */
  set(projectId: number, set: TreeSet, retention: ChangeLogRetention, hook?: TreeWriteHook): Promise<TreeCommit>;
  /** Applies child sets (no path a prefix of another) at once; also returns the merged value at `path`. */
  patch(
    projectId: number,
    path: string,
    sets: TreeSet[],
    retention: ChangeLogRetention,
    hook?: TreeWriteHook,
  ): Promise<TreeCommit & { value: JsonValue }>;
  /** Deletes the subtree at `path` (a commit even when nothing was there). */
  delete(projectId: number, path: string, retention: ChangeLogRetention, hook?: TreeWriteHook): Promise<TreeCommit>;
  /**
   * Commits `writes` in one transaction, in order, each as if it ran alone: a project's writes take
   * its next versions (consecutive, in the order given), a hook sees the writes before it, and a
   * refused write is left out alone. Rejects only when nothing was written (a failed statement).
   */
  commit(writes: readonly TreeWrite[], retention: ChangeLogRetention): Promise<TreeWriteOutcome[]>;
  /** The assembled value at `path` with the version it reflects. */
  snapshot(projectId: number, path: string): Promise<TreeSnapshot>;
  /** The names of the children of `path` when it is an object; its value when a leaf; else none. */
  children(projectId: number, path: string): Promise<{ leaf: JsonValue; keys: string[] }>;
  /** The project's current version: 0 before its first write. */
  currentVersion(projectId: number): Promise<number>;
  /** Every commit after `version`, or null when the log no longer covers them (or `version` is not in 0..current). */
  changesSince(projectId: number, version: number): Promise<TreeHistory | null>;
}

/**
 * Broadcasts between every instance sharing it (in-process, or Redis pub/sub when several
 * instances serve together), so messages are strings and the interface stays this small.
 * Delivery is at most once: a bus that was unreachable for a while says so through `onLoss`,
 * and listeners catch up from the database, which stays the source of truth.
 */
export interface Bus {
  /** Delivers `message` to every listener of `channel` on every instance, in publish order. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Listens on `channel` from when it resolves; the function it resolves to stops listening.
   * `onLoss` is called, once listening has resumed, whenever messages may have been missed.
   */
  subscribe(channel: string, listener: (message: string) => void, onLoss?: () => void): Promise<() => Promise<void>>;
  /** Resolves when the bus can deliver messages now; rejects otherwise (`/readyz`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A change of one user's entry, written only when nothing changed it since it was read. */
export interface EntryWrite {
  /** The period the entry belongs to: once the board has moved on, the write is refused. */
  periodStart: number;
  /** The board revision the entry's league was chosen under: once an admin edit bumped it, the write is refused. */
  revision: number;
  /** The entry as read (null: none); another value in the database means a concurrent write won. */
  previous: LeaderboardEntry | null;
  next: LeaderboardEntry;
  /** The score of `next` in the board's order (see `rank-order.ts`). */
  score: number;
  /** AT_RESET: the league to assign the user to, who had none. */
  assign: string | null;
}

/** What became of an `EntryWrite`. */
export type EntryWriteResult = 'written' | 'board_changed' | 'conflict';

/** The end of a period, run as one transaction by the holder of the board's reset lease. */
export interface PeriodReset {
  owner: string;
  /** The period being closed; nothing happens when the board is no longer in it. */
  periodStart: number;
  next: Period;
  archivedAt: number;
  /** Core's plan of the final listings, from the board as read inside the transaction. */
  plan(board: ResetBoard): ListingRewrite;
}

/** An archived (ended) period of a board. */
export interface ArchivedPeriod {
  start: number;
  end: number;
  archivedAt: number;
}

export type { ArchivedStanding };

/** Leaderboards (§5): boards, leagues, rewards, entries, assignments, resets and archives. */
export interface LeaderboardStore {
  /** Creates a board with its leagues and rewards; throws `conflict` when the slug is taken. */
  create(projectId: number, definition: LeaderboardDefinition, period: Period): Promise<Leaderboard>;
  /** The board of that slug with its leagues (by order) and rewards, or null. */
  get(projectId: number, slug: string): Promise<Leaderboard | null>;
  /** Every board of every project (rank warm-up). */
  listAll(): Promise<Leaderboard[]>;
  /** The boards whose current period ended at or before `now`. */
  listDue(now: number): Promise<Leaderboard[]>;
  /** The user's entry and assignment in the board's current period. */
  standing(boardId: number, userId: number): Promise<Standing>;
  /** Writes an entry (and assignment) unless the period moved on or the entry changed since read. */
  writeEntry(boardId: number, write: EntryWrite): Promise<EntryWriteResult>;
  /**
   * The keys of a league's listing in rank order, strictly after `after`, at most `limit`: the
   * entries, then (AT_RESET) the users assigned without an entry. Keyset pagination over an index.
   */
  scanLeague(boardId: number, league: string, after: RankKey | null, limit: number): Promise<RankKey[]>;
  /** Takes the reset lease of a board still in period `periodStart` that has ended, when free or expired (compare-and-set). */
  acquireResetLease(boardId: number, periodStart: number, owner: string, now: number, until: number): Promise<boolean>;
  /** Archives the standings with rewards, moves assignments, clears entries and starts `next`; false when not the lease holder. */
  resetPeriod(boardId: number, reset: PeriodReset): Promise<boolean>;
  /** An archived period by its start, or the latest when `start` is null. */
  archivedPeriod(boardId: number, start: number | null): Promise<ArchivedPeriod | null>;
  /** Final standings of a league in an archived period, by rank, ranks `offset + 1 ..`. */
  archivedStandings(
    boardId: number,
    periodStart: number,
    league: string,
    offset: number,
    limit: number,
  ): Promise<ArchivedStanding[]>;
  /** How many users of a league were ranked in an archived period. */
  archivedCount(boardId: number, periodStart: number, league: string): Promise<number>;
  /** One user's archived standing, or null. */
  archivedStandingOf(boardId: number, periodStart: number, userId: number): Promise<ArchivedStanding | null>;
}

/**
 * The board edits of the admin API (§6), apart from `LeaderboardStore` so that its engines'
 * files stay the leaderboard code's own.
 */
export interface LeaderboardAdminStore {
  /** The slugs of a project's boards, sorted. */
  listSlugs(projectId: number): Promise<string[]>;
  /**
   * Replaces name, description, operator, leagues and rewards of a board (slug, type, sort and
   * reset stay), moves its revision on, and writes what `rehome` (core's `redefineRewrite`)
   * decides from the current listings, in one transaction. False when no board.
   */
  redefine(boardId: number, definition: LeaderboardDefinition, rehome: ListingRewrite): Promise<boolean>;
  /**
   * Takes the reset lease of a board still in period `periodStart` (free or expired lease), and
   * ends that period at `now` unless it ended earlier; false otherwise. `resetPeriod` follows.
   */
  beginResetNow(boardId: number, periodStart: number, owner: string, now: number, until: number): Promise<boolean>;
}

/** A whole project's data in the §8 format, read and written in one transaction each. */
export interface TransferStore {
  /** Everything of the project, in a stable order (paths, ids, slugs). */
  exportProject(projectId: number): Promise<ProjectExport>;
  /**
   * Loads a checked file in one transaction (§8): looks up what `request.lookup` names, writes the
   * rows `request.plan` returns for it (or, when it throws, nothing), then `tree` as one tree write
   * (none when empty), `rules` as the ruleset's next revision (null: unchanged) and `indexes`
   * declared in state `building` unless the project has them (the caller builds them).
   */
  importProject(projectId: number, request: ImportRequest): Promise<ImportCommit>;
}

/** An import as core planned it, for the engine to run in one transaction. */
export interface ImportRequest {
  lookup: ImportLookup;
  /** Core's conflict checks and rows (`planImport`), from what the engine found. */
  plan(found: ImportFound): ImportRows;
  /** The file's realtime tree as child sets at the root. */
  tree: TreeSet[];
  rules: Ruleset | null;
  indexes: ImportedIndex[];
  retention: ChangeLogRetention;
  now: number;
}

/** What an import committed that others must hear of. */
export interface ImportCommit {
  /** The tree write (null when the file had no realtime paths). */
  tree: TreeCommit | null;
  /** The ruleset revision saved (null when the file left the ruleset unchanged). */
  rules: RulesRevision | null;
  /** The index declarations made (state `building`); those the project had are not among them. */
  indexes: DocumentIndex[];
}

/**
 * Declared indexes of collections (§15), each also a database index over the documents of that
 * project and collection. Declarations are unique per project, collection and fields.
 */
export interface IndexStore {
  /** Records a declaration in state `building`; null when the same one exists. */
  create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null>;
  /** The project's declarations, by id. */
  list(projectId: number): Promise<DocumentIndex[]>;
  /** Every project's declarations in state `building` (those a process that died may have left). */
  building(): Promise<DocumentIndex[]>;
  /**
   * Builds the database index of a declaration in state `building` without blocking other
   * statements where the engine allows it, then records `ready`; on failure removes what was
   * built, records `failed` and rejects. Resolves to the declaration's state afterwards: `ready`
   * once built, `building` when another live process is building it (try again later), its
   * state when it was not `building`, null when it was dropped (it is left dropped). What a
   * builder that died left behind is started over.
   */
  build(index: DocumentIndex): Promise<IndexState | null>;
  /** Drops the declaration and its database index; false when the project has no such index. */
  drop(projectId: number, id: number): Promise<boolean>;
}

/** One storage engine holding every store. */
export interface Storage {
  readonly engine: 'sqlite' | 'postgres';
  readonly documents: DocumentStore;
  readonly accounts: AccountStore;
  readonly tree: TreeStore;
  readonly leaderboards: LeaderboardStore;
  readonly transfer: TransferStore;
  readonly admins: AdminStore;
  readonly leaderboardAdmin: LeaderboardAdminStore;
  readonly serverKeys: ServerKeyStore;
  /** Revisions of each project's access rules (§9). */
  readonly rules: RulesStore;
  /** Declared document indexes (§15). */
  readonly indexes: IndexStore;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
