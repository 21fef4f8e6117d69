/**
 * The TTL sweep (§17) over 100,000 documents that have not expired and a few that have, on both
 * engines: the sweep reads only the expired ones (the rows its queries read, counted by the
 * engines as for §15), its statements seek the index the TTL setting declares (EXPLAIN), and it
 * deletes exactly the expired documents. The plans are printed so a reader can see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocumentJson } from '../../src/core/documents/document-service.js';
import type { DocumentStore, QueryDocumentsOptions } from '../../src/core/documents/document-store.js';
import type { DocumentIndex } from '../../src/core/documents/indexes.js';
import { TtlSweeper } from '../../src/core/documents/ttl-sweeper.js';
import type { Storage } from '../../src/core/ports.js';
import type { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { engines } from '../support/engines.js';

const COUNT = 100_000;
const NOW = Date.UTC(2026, 10, 22, 10);
const FAR = '2999-01-01T00:00:00.000Z';
/** The expired documents: numbers and ISO times (one with an offset), by path. */
const EXPIRED: Record<string, number | string> = {
  'x/n1': NOW - 1,
  'x/n2': NOW,
  'x/n3': 1_000,
  'x/s1': new Date(NOW - 1).toISOString(),
  'x/s2': '2026-11-22T11:30:00+02:00',
  'x/s3': '2001-01-01T00:00:00Z',
};

/** Loads the unexpired documents (half numbers, half ISO strings, all in the future) straight into the table. */
async function load(storage: Storage, projectId: number): Promise<void> {
  if (storage instanceof SqliteStorage) {
    const insert = storage.db.prepare(
      `INSERT INTO documents (project_id, path, parent, collection, id, data, created_at, updated_at, version)
       VALUES (?, ?, '', 'x', lower(hex(randomblob(16))), jsonb(?), 0, 0, 0)`,
    );
    storage.db.transaction(() => {
      for (let i = 0; i < COUNT; i++) {
        insert.run(projectId, `x/d${i}`, JSON.stringify({ expires: i % 2 === 0 ? NOW + 1000 + i : FAR, i }));
      }
    })();
    return;
  }
  const pool = (storage as PostgresStorage).pool;
  await pool.query(
    `INSERT INTO documents (project_id, path, parent, collection, id, data)
     SELECT $1, 'x/d' || i, '', 'x', gen_random_uuid(),
       jsonb_build_object('expires', CASE WHEN i % 2 = 0 THEN to_jsonb($2::bigint + 1000 + i) ELSE to_jsonb($3::text) END, 'i', i)
     FROM generate_series(0, ${COUNT - 1}) AS i`,
    [projectId, NOW, FAR],
  );
  await pool.query('ANALYZE documents');
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`the TTL sweep's reads on ${engine.name}`, () => {
    let storage: Storage;
    let projectId: number;
    let index: DocumentIndex;
    const reads: { options: QueryDocumentsOptions; scanned: number; returned: number }[] = [];

    beforeAll(async () => {
      storage = await engine.create();
      const orgId = (await storage.accounts.ensureOrganisation('acme')).id;
      projectId = (await storage.accounts.createProject(orgId, 'game', { name: 'player', permissions: [] })).id;
      await load(storage, projectId);
      for (const [path, expires] of Object.entries(EXPIRED)) {
        const name = path.split('/')[1] as string;
        await storage.documents.apply(projectId, [
          {
            path: { path, parent: '', collection: 'x', name },
            readsStored: false,
            decide: () => ({ kind: 'write', data: { expires }, newId: crypto.randomUUID() }),
          },
        ]);
      }
      index = (await storage.indexes.create(projectId, 'x', [
        { field: ['expires'], descending: false },
      ])) as DocumentIndex;
      expect(await storage.indexes.build(index)).toBe('ready');
      await storage.ttl.set({ projectId, collection: 'x', field: ['expires'], indexId: index.id });
    }, 120_000);
    afterAll(async () => {
      if (storage) await engine.destroy(storage);
    });

    it('reads only the expired documents, through the index, and deletes them', async () => {
      const documents: Pick<DocumentStore, 'query'> = {
        query: async (id, options) => {
          const result = await storage.documents.query(id, options);
          reads.push({ options, scanned: result.rowsScanned, returned: result.documents.length });
          return result;
        },
      };
      const sweeper = new TtlSweeper({
        ttl: storage.ttl,
        documents,
        indexes: { forProject: async () => [{ ...index, state: 'ready' }] },
        commits: { apply: async (id, mutations) => (await storage.documents.apply(id, mutations)).applied },
        clock: { now: () => NOW },
        owner: 'test',
      });
      expect(await sweeper.sweep()).toBe(Object.keys(EXPIRED).length);
      expect(reads.reduce((sum, read) => sum + read.scanned, 0)).toBe(Object.keys(EXPIRED).length);
      expect(reads.every((read) => read.options.index?.index.id === index.id)).toBe(true);
      for (const read of reads) {
        const plan = await storage.documents.explainQuery(projectId, read.options);
        console.log(`${engine.name} sweep plan:\n  ${plan.join('\n  ')}`);
        const text = plan.join('\n');
        expect(text).toContain(`cds_index_${index.id}`);
        expect(text).not.toMatch(/SCAN documents|Seq Scan/);
      }
      const left = await storage.documents.query(projectId, { collection: 'x', where: [], limit: 10 });
      expect(left.documents.map((json) => parseDocumentJson(json).path)).not.toContain('x/n1');
      for (const path of Object.keys(EXPIRED)) expect(await storage.documents.get(projectId, path)).toBeNull();
      expect(await storage.documents.get(projectId, 'x/d0')).not.toBeNull();
      // A second round finds nothing, and reads nothing.
      reads.length = 0;
      expect(await sweeper.sweep()).toBe(0);
      expect(reads.reduce((sum, read) => sum + read.scanned, 0)).toBe(0);
    }, 60_000);
  });
}
