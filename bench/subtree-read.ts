/**
 * `npx tsx bench/subtree-read.ts`: where the time of a 1,000-leaf subtree GET goes, in process
 * on SQLite (no HTTP): the engine's read, the assembly into objects and their serializations as
 * the GET did before issue 20, and the text path it takes now (`packedLeaves` + `packedSubtreeJson`).
 * Best of several rounds, so a loaded host's noise shows less.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../src/core/json.js';
import { packedSubtreeJson } from '../src/core/realtime/packed-subtree.js';
import { etagOfCanonicalJson, treeEtag } from '../src/core/realtime/tree-atomic.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { loadDatasets, roomPath } from './datasets.js';

const LEAVES = 1_000;
const ROOMS = 100;
const dir = mkdtempSync(join(tmpdir(), 'cds-subtree-read-'));
const storage = SqliteStorage.open(join(dir, 'bench.sqlite'));
try {
  const sizes = { documents: 0, hubDescendants: 0, treeLeaves: LEAVES * ROOMS, subtreeLeaves: LEAVES, boardEntries: 0 };
  await loadDatasets(storage, 1, 1, sizes);
  const tree = storage.tree;
  let k = 0;
  const room = () => roomPath((k++ * 37) % ROOMS);
  const steps: Record<string, () => Promise<unknown>> = {
    'snapshot (read + JSON.parse + assemble)': () => tree.snapshot(1, room()),
    'before: snapshot + ETag + body': async () => {
      const path = room();
      const { value } = await tree.snapshot(1, path);
      return treeEtag(value).length + JSON.stringify({ path, value }).length;
    },
    'canonicalJson of an assembled subtree': async () => canonicalJson((await tree.snapshot(1, room())).value),
    'packedLeaves (read only)': () => tree.packedLeaves(1, room()),
    'after: packedLeaves + packedSubtreeJson + ETag + body': async () => {
      const path = room();
      const json = packedSubtreeJson(path, (await tree.packedLeaves(1, path)).packed);
      return (
        etagOfCanonicalJson(json).length +
        Buffer.concat([Buffer.from(`{"path":${JSON.stringify(path)},"value":`), json, Buffer.from('}')]).length
      );
    },
  };
  const best = new Map<string, number>();
  for (let round = 0; round < 5; round++) {
    for (const [name, step] of Object.entries(steps)) {
      for (let i = 0; i < 20; i++) await step();
      const started = performance.now();
      for (let i = 0; i < 100; i++) await step();
      const us = ((performance.now() - started) * 1000) / 100;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, us));
    }
  }
  for (const [name, us] of best) process.stdout.write(`${name}: ${us.toFixed(0)} µs\n`);
} finally {
  storage.close();
  rmSync(dir, { recursive: true, force: true });
}
