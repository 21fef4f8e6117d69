/**
 * Realtime PUT right after a large import (issue 39), on SQLite: 100,000 documents and a tree of
 * 1,000,000 leaves imported through `TransferService` (what `cds import` runs) into the bench's
 * project, then the service started as `npm start` starts it and PUT for `--turns` turns of
 * `--seconds` each, every turn's rate, p99 and the WAL's size printed. `--skip-import` measures
 * the same service without the import (the reference), `--workers N` sets `CDS_WORKERS`.
 *
 *   npx tsx bench/after-import.ts [--turns 6] [--seconds 5] [--workers 2] [--skip-import]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { walMiB } from './seed-import.js';
import { clientHeaders, prepareDatabase, startService } from './service-process.js';
import { benchSettings } from './settings.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    workers: { type: 'string', default: '2' },
    'skip-import': { type: 'boolean', default: false },
  },
});
const ROOMS = 1_000;
const LEAVES_PER_ROOM = 1_000;

const settings = { ...benchSettings(false, process.env, ['sqlite']), datasets: false, users: 50 };
const prepared = await prepareDatabase('sqlite', settings);
const file = join(prepared.dataDir, 'cds.sqlite');
const wal = () => walMiB(prepared.dataDir).toFixed(1);
try {
  if (!values['skip-import']) {
    const storage = SqliteStorage.open(file);
    const services = createServices(loadConfig(prepared.env), storage);
    const projectId = prepared.project.projectId;
    const seed = await services.transfer.exportProject(projectId);
    seed.documents = Array.from({ length: 100_000 }, (_, i) => ({
      path: `items/i${i}`,
      data: { n: i, name: `item ${i}`, tags: ['a', 'b'] },
    }));
    const rooms: Record<string, Record<string, number>> = {};
    for (let r = 0; r < ROOMS; r++) {
      rooms[`r${r}`] = Object.fromEntries(Array.from({ length: LEAVES_PER_ROOM }, (_, k) => [`p${k}`, r * 1000 + k]));
    }
    seed.realtime = { rooms };
    const started = performance.now();
    await services.transfer.importProject(projectId, seed);
    console.log(`import: ${((performance.now() - started) / 1000).toFixed(1)} s, WAL ${wal()} MiB`);
    await services.leaderboards.stop();
    await storage.close();
  }
  const service = await startService(prepared, undefined, Number(values.workers));
  console.log(`service ready in ${service.readyMs.toFixed(0)} ms (CDS_WORKERS=${values.workers})`);
  let i = 0;
  try {
    for (let turn = 1; turn <= Number(values.turns); turn++) {
      const result = await autocannon({
        url: service.baseUrl,
        connections: 50,
        duration: Number(values.seconds),
        requests: [
          {
            method: 'PUT',
            setupRequest: (request) => {
              i++;
              return {
                ...request,
                path: `/realtime/db/players/p${(i * 7919) % 10_000}`,
                headers: { ...clientHeaders(prepared.project, i), 'content-type': 'application/json' },
                body: JSON.stringify({ value: { n: i } }),
              };
            },
          },
        ],
      });
      const rate = result.requests.average.toFixed(0);
      console.log(
        `turn ${turn}: ${rate} req/s, p99 ${result.latency.p99} ms, errors ${result.non2xx}, WAL ${wal()} MiB`,
      );
    }
  } finally {
    await service.server.stop();
  }
} finally {
  await prepared.drop();
}
