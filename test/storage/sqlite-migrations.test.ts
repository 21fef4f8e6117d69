/**
 * SQLite schema upgrades on a database written by an earlier version: migration 5 moves the
 * documents into a rowid table with JSONB data and keeps every one of them, with its id, data
 * and timestamps; migration 12 builds declared indexes again as covering ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import { sqliteMigrations } from '../../src/storage/sqlite/migrations.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database file at schema version `version`, as that version of the service left it. */
function databaseAt(version: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'cds-migrations-'));
  dirs.push(dir);
  const file = join(dir, 'cds.sqlite');
  const db = new Database(file);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  for (const step of sqliteMigrations.filter((m) => m.version <= version)) {
    db.exec(step.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(step.version, step.name);
  }
  const insert = db.prepare(
    'INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  insert.run(1, 'users/u1', '', 'users', 'id-u1', '{"a":1}', 10, 20);
  insert.run(1, 'users/u1/posts/p1', 'users/u1', 'posts', 'id-p1', '{"b":[2]}', 30, 40);
  insert.run(2, 'users/u1', '', 'users', 'id-other', '{"c":3}', 50, 60);
  db.close();
  return file;
}

describe('SQLite migration 5: documents as a rowid table with JSONB data', () => {
  it('keeps every document of a version 4 database and serves it through the store', async () => {
    const storage = SqliteStorage.open(databaseAt(4));
    try {
      const rows = storage.db
        .prepare(
          'SELECT project_id, path, parent, collection, id, json(data) AS data, created_at, updated_at FROM documents ORDER BY project_id, path',
        )
        .all();
      expect(rows).toEqual([
        {
          project_id: 1,
          path: 'users/u1',
          parent: '',
          collection: 'users',
          id: 'id-u1',
          data: '{"a":1}',
          created_at: 10,
          updated_at: 20,
        },
        {
          project_id: 1,
          path: 'users/u1/posts/p1',
          parent: 'users/u1',
          collection: 'posts',
          id: 'id-p1',
          data: '{"b":[2]}',
          created_at: 30,
          updated_at: 40,
        },
        {
          project_id: 2,
          path: 'users/u1',
          parent: '',
          collection: 'users',
          id: 'id-other',
          data: '{"c":3}',
          created_at: 50,
          updated_at: 60,
        },
      ]);
      const table = storage.db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'")
        .pluck()
        .get();
      expect(String(table)).not.toMatch(/WITHOUT ROWID/i);
      const types = storage.db.prepare('SELECT DISTINCT typeof(data) FROM documents').pluck().all();
      expect(types).toEqual(['blob']);
      expect(await storage.documents.get(1, 'users/u1')).toMatchObject({
        id: 'id-u1',
        path: 'users/u1',
        data: { a: 1 },
      });
      expect(await storage.documents.childCollections(1, 'users/u1')).toEqual(['posts']);
      const listed = await storage.documents.list(1, { parent: 'users/u1', collection: 'posts', limit: 10 });
      expect(listed.map(parseDocumentJson)).toEqual([{ id: 'id-p1', path: 'users/u1/posts/p1', data: { b: [2] } }]);
    } finally {
      await storage.close();
    }
  });

  it('still refuses a second document at the same path of a project', () => {
    const storage = SqliteStorage.open(databaseAt(4));
    try {
      const duplicate = () =>
        storage.db
          .prepare(
            "INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at) VALUES (1, 'users/u1', '', 'users', 'x', '{}', 0, 0)",
          )
          .run();
      expect(duplicate).toThrow(/UNIQUE constraint failed/);
    } finally {
      void storage.close();
    }
  });
});

describe('SQLite migration 12: declared indexes covering their queries', () => {
  it('builds a ready index of the older shape again, covering, and the query reads only the index', async () => {
    const file = databaseAt(11);
    const db = new Database(file);
    db.prepare(
      `INSERT INTO document_indexes (id, project_id, collection, fields, signature, state, created_at)
       VALUES (1, 1, 'users', '[{"field":"a","order":"asc"}]', 'users:a', 'ready', 0)`,
    ).run();
    // The shape before migration 12: key columns and path only.
    db.exec(`CREATE INDEX cds_index_1 ON documents (json_extract(data, '$.a'), path) WHERE project_id = 1`);
    db.close();
    const storage = SqliteStorage.open(file);
    try {
      const [declared] = await storage.indexes.building();
      expect(declared).toMatchObject({ id: 1, collection: 'users', state: 'building' });
      expect(await storage.indexes.build(declared as NonNullable<typeof declared>)).toBe('ready');
      const { sql } = storage.db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'cds_index_1'").get() as {
        sql: string;
      };
      expect(sql).toMatch(/, path, id, data, parent\)/);
    } finally {
      await storage.close();
    }
  });
});
