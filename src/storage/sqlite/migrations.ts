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
  expires_at INTEGER NOT NULL,
  used_at INTEGER
) WITHOUT ROWID;
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
];
