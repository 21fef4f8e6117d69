/** Versioned schema of the SQLite engine; append, never edit a released step. */
export const sqliteMigrations: { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'accounts and documents',
    sql: `
CREATE TABLE organisations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  org_id INTEGER NOT NULL REFERENCES organisations(id),
  name TEXT NOT NULL,
  next_user_id INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL
);
CREATE TABLE clients (
  client_id TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  secret_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE roles (
  project_id INTEGER NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  permissions TEXT NOT NULL,
  PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
CREATE TABLE users (
  project_id INTEGER NOT NULL REFERENCES projects(id),
  id INTEGER NOT NULL,
  username TEXT NOT NULL COLLATE NOCASE,
  password_hash TEXT,
  nickname TEXT NOT NULL,
  avatar_url TEXT,
  roles TEXT NOT NULL,
  device_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, id),
  UNIQUE (project_id, username),
  UNIQUE (project_id, device_id)
) WITHOUT ROWID;
CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_user ON refresh_tokens (project_id, user_id);
CREATE TABLE documents (
  project_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  parent TEXT NOT NULL,
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, path)
) WITHOUT ROWID;
CREATE INDEX documents_by_collection ON documents (project_id, collection, path);
CREATE INDEX documents_by_parent ON documents (project_id, parent, collection, path);
`,
  },
  {
    version: 2,
    name: 'realtime tree, versions and change log',
    sql: `
CREATE TABLE tree_leaves (
  project_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (project_id, path)
) WITHOUT ROWID;
CREATE TABLE tree_versions (
  project_id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  log_floor INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE tree_changes (
  project_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, version, seq)
) WITHOUT ROWID;
`,
  },
  {
    version: 3,
    name: 'leaderboards',
    sql: `
CREATE TABLE leaderboards (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  type TEXT NOT NULL,
  sort TEXT NOT NULL,
  operator TEXT NOT NULL,
  reset TEXT NOT NULL,
  revision INTEGER NOT NULL DEFAULT 1,
  period_start INTEGER NOT NULL,
  period_end INTEGER,
  reset_owner TEXT,
  reset_lease_until INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, slug)
);
CREATE INDEX leaderboards_by_period_end ON leaderboards (period_end) WHERE period_end IS NOT NULL;
CREATE TABLE leaderboard_leagues (
  leaderboard_id INTEGER NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  ord INTEGER NOT NULL,
  min_stat REAL,
  promote_top INTEGER,
  demote_bottom INTEGER,
  PRIMARY KEY (leaderboard_id, slug)
) WITHOUT ROWID;
CREATE TABLE leaderboard_rewards (
  leaderboard_id INTEGER NOT NULL,
  position INTEGER NOT NULL,
  league TEXT NOT NULL,
  rank_from INTEGER NOT NULL,
  rank_to INTEGER NOT NULL,
  reward TEXT NOT NULL,
  PRIMARY KEY (leaderboard_id, position)
) WITHOUT ROWID;
CREATE TABLE leaderboard_entries (
  leaderboard_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  league TEXT NOT NULL,
  stat_value REAL NOT NULL,
  score REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (leaderboard_id, user_id)
) WITHOUT ROWID;
CREATE INDEX leaderboard_entries_by_rank ON leaderboard_entries (leaderboard_id, league, score, updated_at, user_id);
CREATE TABLE leaderboard_assignments (
  leaderboard_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  league TEXT NOT NULL,
  PRIMARY KEY (leaderboard_id, user_id)
) WITHOUT ROWID;
CREATE INDEX leaderboard_assignments_by_league ON leaderboard_assignments (leaderboard_id, league, user_id);
CREATE TABLE leaderboard_periods (
  leaderboard_id INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  period_end INTEGER NOT NULL,
  archived_at INTEGER NOT NULL,
  PRIMARY KEY (leaderboard_id, period_start)
) WITHOUT ROWID;
CREATE TABLE leaderboard_history (
  leaderboard_id INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  league TEXT NOT NULL,
  rank INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  stat_value REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  reward TEXT,
  PRIMARY KEY (leaderboard_id, period_start, league, rank)
) WITHOUT ROWID;
CREATE INDEX leaderboard_history_by_user ON leaderboard_history (leaderboard_id, period_start, user_id);
`,
  },
  {
    version: 4,
    name: 'admins',
    sql: `
CREATE TABLE admins (
  id INTEGER PRIMARY KEY,
  org_id INTEGER NOT NULL REFERENCES organisations(id),
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
  created_at INTEGER NOT NULL
);
CREATE INDEX admins_by_org ON admins (org_id);
CREATE INDEX projects_by_org ON projects (org_id, id);
CREATE INDEX clients_by_project ON clients (project_id, created_at);
`,
  },
  {
    version: 5,
    name: 'documents as a rowid table with JSONB data',
    // A WITHOUT ROWID table keeps each ~300-byte document in the primary key's B-tree, so every
    // row an index scan finds costs a second seek by (project_id, path) text. With rowids the
    // indexes point at an integer key: reading a 100-row list took about 40 % less time, a
    // 100-row query about 25 % less (over 100,000 documents). `data` is stored as SQLite's JSONB,
    // which json_extract() reads without parsing the text: a query's clauses, evaluated on every
    // candidate row, cost about 20 % less; json() turns it back into text for answers.
    sql: `
CREATE TABLE documents_by_rowid (
  project_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  parent TEXT NOT NULL,
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  data BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO documents_by_rowid (project_id, path, parent, collection, id, data, created_at, updated_at)
  SELECT project_id, path, parent, collection, id, jsonb(data), created_at, updated_at FROM documents ORDER BY project_id, path;
DROP TABLE documents;
ALTER TABLE documents_by_rowid RENAME TO documents;
CREATE UNIQUE INDEX documents_by_path ON documents (project_id, path);
CREATE INDEX documents_by_collection ON documents (project_id, collection, path);
CREATE INDEX documents_by_parent ON documents (project_id, parent, collection, path);
`,
  },
  {
    version: 6,
    name: 'server keys and disabled users',
    // `token_epoch` moves on at every disable and access tokens carry the epoch they were issued
    // under, so tokens from before a disable stay refused after re-enabling (`iat` has one-second
    // resolution, too coarse to tell them apart). Server keys are stored as SHA-256 hashes only.
    sql: `
ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN token_epoch INTEGER NOT NULL DEFAULT 0;
CREATE TABLE server_keys (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('editor', 'viewer')),
  key_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX server_keys_by_project ON server_keys (project_id, id);
`,
  },
  {
    version: 7,
    name: 'access rules',
    sql: `
CREATE TABLE rules_revisions (
  project_id INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  rules TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, revision)
) WITHOUT ROWID;
`,
  },
  {
    version: 8,
    name: 'leaderboard anti-cheat',
    sql: `
ALTER TABLE leaderboards ADD COLUMN client_submit INTEGER NOT NULL DEFAULT 1;
ALTER TABLE leaderboards ADD COLUMN stat_min REAL;
ALTER TABLE leaderboards ADD COLUMN stat_max REAL;
`,
  },
  {
    version: 9,
    name: 'declared document indexes',
    // One row per declaration; its database index is `cds_index_<id>` (index-sql.ts). AUTOINCREMENT
    // never reuses an id, so a new declaration never meets a dropped one's leftovers.
    sql: `
CREATE TABLE document_indexes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  collection TEXT NOT NULL,
  fields TEXT NOT NULL,
  signature TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('building', 'ready', 'failed')),
  created_at INTEGER NOT NULL,
  UNIQUE (project_id, signature)
);
`,
  },
  {
    version: 10,
    name: 'document versions',
    // One commit sequence per project for documents (§10, §11), apart from the tree's: a group
    // commit bumps a project's row once for all the writes it carries. Each document keeps the
    // version of its last write; rows older than this migration start at 0.
    sql: `
CREATE TABLE document_versions (
  project_id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL
);
ALTER TABLE documents ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 11,
    name: 'document change log',
    // The commits of each project's documents after `log_floor` (§10 `since`), one row per
    // document a commit changed (`data` null for a delete; `previous` its data before, for resume), written in the commit and trimmed
    // there as the tree's log is. Older commits were never logged: the floor starts at the version.
    sql: `
ALTER TABLE document_versions ADD COLUMN log_floor INTEGER NOT NULL DEFAULT 0;
UPDATE document_versions SET log_floor = version;
CREATE TABLE document_changes (
  project_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  id TEXT NOT NULL,
  data TEXT,
  previous TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, version, seq)
) WITHOUT ROWID;
`,
  },
  {
    version: 12,
    name: 'covering declared indexes',
    // Declared indexes now hold `id` and `data` too (index-sql.ts), so a query reads no table
    // row. Each is built again in the new shape at start (IndexService.resume), online as a new
    // declaration is; until its build ends, queries on its collection run without it.
    sql: `
UPDATE document_indexes SET state = 'building' WHERE state = 'ready';
`,
  },
  {
    version: 13,
    name: 'refresh tokens under a token epoch',
    // A refresh token is good only under the token epoch it was issued under, as access tokens
    // are: one saved by a sign-in racing a disable (after it dropped the user's tokens) is then
    // refused, even after re-enabling. Tokens stored before are taken as of the current epoch.
    sql: `
ALTER TABLE refresh_tokens ADD COLUMN token_epoch INTEGER NOT NULL DEFAULT 0;
UPDATE refresh_tokens SET token_epoch = coalesce((
  SELECT u.token_epoch FROM users u WHERE u.project_id = refresh_tokens.project_id AND u.id = refresh_tokens.user_id
), 0);
`,
  },
  {
    version: 14,
    name: 'leaderboard history by user first',
    // A player's own history (§18 `history/me`) reads every archived period of one user on one
    // board: with the user before the period in the key that is one range of the index, where
    // `(leaderboard_id, period_start, user_id)` had to visit every period of the board. The new
    // key still serves a user's standing in one period (all three columns fixed), so it replaces it.
    sql: `
DROP INDEX leaderboard_history_by_user;
CREATE INDEX leaderboard_history_by_user ON leaderboard_history (leaderboard_id, user_id, period_start);
`,
  },
  {
    version: 15,
    name: 'leaderboard tournaments',
    // §18 tournaments: a board's join rule, limits and window (existing boards: none, so they stay
    // as they were; the window as epoch ms), and per period the joins, their count and each
    // player's counted submissions. Keyed by the period, so an old period's rows never count for
    // the next one; a reset deletes them.
    sql: `
ALTER TABLE leaderboards ADD COLUMN join_required INTEGER NOT NULL DEFAULT 0;
ALTER TABLE leaderboards ADD COLUMN max_participants INTEGER;
ALTER TABLE leaderboards ADD COLUMN max_submissions INTEGER;
ALTER TABLE leaderboards ADD COLUMN starts_at INTEGER;
ALTER TABLE leaderboards ADD COLUMN ends_at INTEGER;
CREATE TABLE leaderboard_joins (
  leaderboard_id INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  joined_at INTEGER NOT NULL,
  PRIMARY KEY (leaderboard_id, period_start, user_id)
) WITHOUT ROWID;
CREATE TABLE leaderboard_join_counts (
  leaderboard_id INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  participants INTEGER NOT NULL,
  PRIMARY KEY (leaderboard_id, period_start)
) WITHOUT ROWID;
CREATE TABLE leaderboard_submission_counts (
  leaderboard_id INTEGER NOT NULL,
  period_start INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  submissions INTEGER NOT NULL,
  PRIMARY KEY (leaderboard_id, period_start, user_id)
) WITHOUT ROWID;
`,
  },
  {
    version: 16,
    name: 'players call server functions',
    // §16: the default player role may call the project's server functions (client.functions), as
    // a new project's player role does; an operator who wants otherwise edits the role.
    sql: `
UPDATE roles SET permissions = json_insert(permissions, '$[#]', 'client.functions')
WHERE name = 'player' AND NOT EXISTS (SELECT 1 FROM json_each(roles.permissions) WHERE value = 'client.functions');
`,
  },
  {
    version: 17,
    name: 'events outbox',
    // §16: each commit's events, in commit order per project (`seq`, from `event_heads`), as the
    // JSON consumers receive; each consumer's place in a project's events and its lease.
    sql: `
CREATE TABLE events (
  project_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  json TEXT NOT NULL,
  PRIMARY KEY (project_id, seq)
) WITHOUT ROWID;
CREATE TABLE event_heads (
  project_id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL
);
CREATE TABLE event_consumers (
  project_id INTEGER NOT NULL,
  consumer TEXT NOT NULL,
  position INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  PRIMARY KEY (project_id, consumer)
) WITHOUT ROWID;
`,
  },
  {
    version: 18,
    name: 'webhooks',
    // §16: webhook registrations; `events` is the JSON list of types and patterns as registered.
    sql: `
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX webhooks_by_project ON webhooks (project_id, id);
`,
  },
  {
    version: 19,
    name: 'webhook deliveries',
    // §16: each webhook's last attempt at each event it was sent (core decides how many are
    // kept); \`json\` is the event while it is not delivered, so a failed one can be sent again.
    sql: `
CREATE TABLE webhook_deliveries (
  webhook_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  project_id INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at INTEGER,
  first_attempt_at INTEGER NOT NULL,
  redeliver INTEGER NOT NULL DEFAULT 0,
  json TEXT,
  PRIMARY KEY (webhook_id, seq)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (webhook_id, event_id);
`,
  },
  {
    version: 20,
    name: 'schedule runs',
    // §16: the last tick (epoch ms) each schedule ran for each project; `schedule` is the
    // module's file name and the schedule's name. Instances claim a tick by moving it forward.
    sql: `
CREATE TABLE schedule_runs (
  project_id INTEGER NOT NULL,
  schedule TEXT NOT NULL,
  last_tick INTEGER NOT NULL,
  PRIMARY KEY (project_id, schedule)
) WITHOUT ROWID;
`,
  },
  {
    version: 21,
    name: 'on-disconnect writes',
    // §17: the writes a socket stored to run when it ends, under the lease of the instance holding
    // it (\`instance_leases\`, renewed every few seconds); another instance takes the ops of a
    // lapsed lease. A tree write that runs an op deletes its row in its own transaction.
    sql: `
CREATE TABLE instance_leases (
  instance_id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE disconnect_ops (
  id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  connection_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  project_id INTEGER NOT NULL,
  op TEXT NOT NULL,
  path TEXT NOT NULL,
  value TEXT NOT NULL,
  user_id INTEGER,
  auth TEXT,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX disconnect_ops_by_instance ON disconnect_ops (instance_id, connection_id, seq);
`,
  },
  {
    version: 22,
    name: 'expiring documents',
    // §17: each collection's TTL field (one per project and collection), with the §15 index the
    // setting made (null when one on that field existed already: the setting leaves it alone).
    // One row leases the sweep to one instance at a time.
    sql: `
CREATE TABLE document_ttls (
  project_id INTEGER NOT NULL,
  collection TEXT NOT NULL,
  field TEXT NOT NULL,
  index_id INTEGER,
  PRIMARY KEY (project_id, collection)
);
CREATE TABLE ttl_sweep_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
INSERT INTO ttl_sweep_lease (id, owner, expires_at) VALUES (1, '', 0);
`,
  },
];
