/**
 * An index left `building` by a process that died (§15) is built again: at start (`resume`) and
 * on the next query of its project; on PostgreSQL, not while a live builder still holds it, and
 * over whatever invalid index of that name the dead builder left.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../src/bus/in-process-bus.js';
import { IndexService } from '../../src/core/documents/index-service.js';
import { parseIndexFields } from '../../src/core/documents/indexes.js';
import { parseDocumentPath } from '../../src/core/paths.js';
import type { Storage } from '../../src/core/ports.js';
import type { PostgresStorage } from '../../src/storage/postgres/postgres-storage.js';
import { ManualClock } from '../support/clock.js';
import { upsert } from '../support/document-writes.js';
import { engines, postgresEngine } from '../support/engines.js';

const BY_LEVEL = parseIndexFields([{ field: 'level' }]);

/** A declaration as a process that died after declaring it left it: `building`, nothing built. */
async function stuckIndex(storage: Storage, projectId: number) {
  await upsert(storage.documents, projectId, parseDocumentPath('items/a'), { level: 1 });
  const index = await storage.indexes.create(projectId, 'items', BY_LEVEL);
  if (!index) throw new Error('declared twice');
  return index;
}

const stateOf = async (storage: Storage, projectId: number) => (await storage.indexes.list(projectId))[0]?.state;

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`recovery of an index left building on ${engine.name}`, () => {
    let storage: Storage;
    let bus: InProcessBus;
    const service = () => new IndexService({ store: storage.indexes, bus, clock: new ManualClock(0) });
    beforeAll(async () => {
      storage = await engine.create();
      bus = new InProcessBus();
    });
    afterAll(async () => {
      await bus?.close();
      if (storage) await engine.destroy(storage);
    });

    it('builds it again when a process starts (resume)', async () => {
      await stuckIndex(storage, 1);
      const restarted = service();
      expect(await restarted.resume()).toBe(1);
      await restarted.whenBuilt();
      expect(await stateOf(storage, 1)).toBe('ready');
      expect(await restarted.resume()).toBe(0);
    });

    it('builds it again on the next query of its project, once', async () => {
      const index = await stuckIndex(storage, 2);
      const running = service();
      const seen = await running.forProject(2);
      expect(seen.map((item) => [item.id, item.state])).toEqual([[index.id, 'building']]);
      await running.whenBuilt();
      expect(await stateOf(storage, 2)).toBe('ready');
      // Planned with once the cache is reloaded (the build's end announces it).
      expect((await running.forProject(2)).map((item) => item.state)).toEqual(['ready']);
    });
  });
}

describe.skipIf(postgresEngine.unavailable)('an index left building on postgres, with a builder alive or dead', () => {
  let storage: PostgresStorage;
  let other: pg.PoolClient;
  beforeAll(async () => {
    storage = (await postgresEngine.create()) as PostgresStorage;
    other = await storage.pool.connect();
  });
  afterAll(async () => {
    other?.release(true);
    if (storage) await postgresEngine.destroy(storage);
  });

  it('leaves it to a live builder, and builds it once that builder is gone', async () => {
    const index = await stuckIndex(storage, 1);
    // What a live builder on another instance holds for the build's duration.
    await other.query(`SELECT pg_advisory_lock(hashtext(current_schema() || '/cds_index_claim'), $1)`, [index.id]);
    expect(await storage.indexes.build(index)).toBe('building');
    expect(await stateOf(storage, 1)).toBe('building');
    // The builder's connection ends (its process died): the claim goes with it.
    await other.query('SELECT pg_advisory_unlock_all()');
    expect(await storage.indexes.build(index)).toBe('ready');
  });

  it('starts over from an index of that name a dead builder left', async () => {
    const index = await stuckIndex(storage, 2);
    await storage.pool.query(`CREATE INDEX cds_index_${index.id} ON documents (path)`);
    expect(await storage.indexes.build(index)).toBe('ready');
    const { rows } = await storage.pool.query<{ indexdef: string }>(
      'SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1',
      [`cds_index_${index.id}`],
    );
    expect(rows[0]?.indexdef).toContain("collection = 'items'::text");
  });
});
