/**
 * `npx tsx bench/paired-unpaired.ts [--engine sqlite|postgres] [--seconds N] [--rounds N] [--connections N]`:
 * document GET against bare GET measured two ways on the same service and baseline processes,
 * to explain why a harness that runs each alone reports a lower ratio than `npm run bench`:
 * - unpaired: each workload alone for N seconds after its own warm-up, one after the other;
 * - paired: as `npm run bench` does, each slice of document GET after a slice of bare GET half as long.
 * For every measurement: the rate, the server's CPU per request, the load generator's own CPU per
 * request (autocannon runs in this process, on the same two cores), the load average and the CPU
 * clock. Prints a Markdown table; the figures worth keeping go to BENCHMARKS.md.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startBaselines } from './baselines.js';
import { type HttpLoadResult, type LoadTarget, runHttpLoad } from './http-load.js';
import { baselineWorkloads, serviceWorkloads } from './http-workloads.js';
import { clientHeaders, prepareDatabase, startService } from './service-process.js';
import { benchSettings, type Engine } from './settings.js';

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const engine = argument('--engine', 'sqlite') as Engine;
const seconds = Number(argument('--seconds', '5'));
const rounds = Number(argument('--rounds', '3'));
const settings = benchSettings(true, process.env, [engine]);
settings.connections = Number(argument('--connections', String(settings.connections)));
// Only the document collection matters here: the other datasets small, so set-up is quick.
Object.assign(settings, { largeDocuments: 1_000, hubDescendants: 1_000, treeLeaves: 1_000, boardEntries: 1_000 });
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The mean clock of the host's CPUs in MHz (what frequency scaling and sharing leave). */
function cpuMhz(): number {
  const clocks = [...readFileSync('/proc/cpuinfo', 'utf8').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((m) =>
    Number(m[1]),
  );
  return clocks.length > 0 ? clocks.reduce((a, b) => a + b, 0) / clocks.length : Number.NaN;
}

interface Measured {
  mode: 'unpaired' | 'paired';
  workload: string;
  rate: number;
  serverCpuUs: number;
  generatorCpuUs: number;
  p50Ms: number;
  load: number;
  mhz: number;
}

/** One load, with the generator's CPU per request (this process: autocannon and its callbacks). */
async function measure(
  mode: Measured['mode'],
  workload: string,
  run: () => Promise<HttpLoadResult>,
  requestsOf: (result: HttpLoadResult) => number,
): Promise<{ row: Measured; result: HttpLoadResult }> {
  const mhz = cpuMhz();
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  const row: Measured = {
    mode,
    workload,
    rate: result.requestsPerSecond,
    serverCpuUs: result.serverCpuUs,
    generatorCpuUs: (used.user + used.system) / requestsOf(result),
    p50Ms: result.p50Ms,
    load: loadavg()[0] ?? Number.NaN,
    mhz: (mhz + cpuMhz()) / 2,
  };
  log(`  ${mode} ${workload}: ${Math.round(row.rate)} req/s, server ${Math.round(row.serverCpuUs)} µs/req`);
  return { row, result };
}

const bare = await startBaselines();
const prepared = await prepareDatabase(engine, settings);
const rows: Measured[] = [];
const pairedRatios: number[] = [];
try {
  const service = await startService(prepared);
  try {
    const documentGet = serviceWorkloads(settings).find((w) => w.name === 'document GET');
    const bareGet = baselineWorkloads.find((w) => w.name === 'bare GET');
    if (!documentGet || !bareGet) throw new Error('document GET or bare GET is missing');
    const serviceTarget: LoadTarget = {
      ...documentGet,
      baseUrl: service.baseUrl,
      headers: (c) => clientHeaders(prepared.project, c),
      connections: settings.connections,
    };
    const bareTarget: LoadTarget = {
      ...bareGet,
      baseUrl: bare.httpUrl,
      headers: () => ({}),
      connections: settings.connections,
    };
    // Warm-ups run outside `measure`, so the generator's CPU counts measured requests only.
    const warm = (target: LoadTarget) => runHttpLoad({ ...target, warmupSeconds: 0, durationSeconds: 1 });
    const alone = (target: LoadTarget, cpu: () => number) => () =>
      runHttpLoad({ ...target, warmupSeconds: 0, durationSeconds: seconds, serverCpuSeconds: cpu });
    for (let round = 0; round < rounds; round++) {
      log(`round ${round + 1} of ${rounds}`);
      const requests = (r: HttpLoadResult) => r.requests;
      await warm(serviceTarget);
      rows.push(
        (
          await measure(
            'unpaired',
            'document GET',
            alone(serviceTarget, () => service.server.cpuSeconds()),
            requests,
          )
        ).row,
      );
      await warm(bareTarget);
      rows.push(
        (
          await measure(
            'unpaired',
            'bare GET',
            alone(bareTarget, () => bare.server.cpuSeconds()),
            requests,
          )
        ).row,
      );
      await warm(bareTarget);
      await warm(serviceTarget);
      // Paired: the generator's CPU covers both targets' requests (bare GET's at its measured rate, half as long).
      const { row, result } = await measure(
        'paired',
        'document GET',
        () =>
          runHttpLoad({
            ...serviceTarget,
            warmupSeconds: 0,
            durationSeconds: seconds,
            serverCpuSeconds: () => service.server.cpuSeconds(),
            baselineTarget: bareTarget,
          }),
        (r) => r.requests + (r.baselineRate ?? 0) * (seconds / 2),
      );
      rows.push(row);
      rows.push({
        ...row,
        workload: 'bare GET (its paired slices)',
        rate: result.baselineRate ?? Number.NaN,
        serverCpuUs: Number.NaN,
        p50Ms: Number.NaN,
      });
      pairedRatios.push(...(result.roundRatios ?? []));
    }
  } finally {
    await service.server.stop();
  }
} finally {
  await prepared.drop();
  await bare.stop();
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
process.stdout.write(
  `${engine}, ${settings.connections} connections, ${seconds} s per measurement, ${rounds} rounds\n\n` +
    '| mode | workload | rate (req/s) | server CPU/req (µs) | generator CPU/req (µs) | p50 (ms) | load avg | CPU MHz |\n' +
    '|---|---|---|---|---|---|---|---|\n',
);
for (const r of rows) {
  process.stdout.write(
    `| ${r.mode} | ${r.workload} | ${fmt(r.rate)} | ${fmt(r.serverCpuUs)} | ${fmt(r.generatorCpuUs)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.load, 1)} | ${fmt(r.mhz)} |\n`,
  );
}
const mean = (mode: Measured['mode'], workload: string, field: 'rate' | 'serverCpuUs') => {
  const values = rows.filter((r) => r.mode === mode && r.workload.startsWith(workload)).map((r) => r[field]);
  return values.reduce((a, b) => a + b, 0) / values.length;
};
process.stdout.write(
  `\nunpaired rate ratio ${fmt(mean('unpaired', 'document GET', 'rate') / mean('unpaired', 'bare GET', 'rate'), 2)}; ` +
    `paired rate ratio ${fmt(mean('paired', 'document GET', 'rate') / mean('paired', 'bare GET', 'rate'), 2)} ` +
    `(rounds ${pairedRatios.map((r) => fmt(r, 2)).join(', ')}); ` +
    `server CPU ratio (bare µs/req ÷ service µs/req, unpaired) ${fmt(mean('unpaired', 'bare GET', 'serverCpuUs') / mean('unpaired', 'document GET', 'serverCpuUs'), 2)}\n`,
);
