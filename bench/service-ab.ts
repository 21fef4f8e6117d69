/**
 * `npx tsx bench/service-ab.ts [--workload "document GET"] [--b-root DIR] [--b-env "K=V …"] [--env "K=V …"] [--pairs 16] [--slice-seconds 1.5] [--from-source]`:
 * the server CPU per request of two services side by side, each on its own copy of the quick
 * datasets (SQLite): A is this checkout, B another checkout (`--b-root`) and/or this one with more
 * environment (`--b-env`); `--env` is given to both. Each side runs its checkout's build (`dist/src/main.js`, built first
 * when older than its sources), or with `--from-source` its sources through tsx (`src/main.ts`:
 * uncommitted work, unbuilt). Their loads alternate in short slices, so
 * the host's swings (on a shared VM, more than the differences sought) hit both alike; prints the
 * median of the pairs' B ÷ A ratios with its quartiles. Two copies of one commit give 1.00 ± 0.06.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runHttpLoad } from './http-load.js';
import { type HttpWorkload, serviceWorkloads } from './http-workloads.js';
import { rangeWorkloads } from './indexed-collections.js';
import { serviceCommand, serviceEntry } from './service-entry.js';
import {
  clientHeaders,
  type PreparedDatabase,
  prepareDatabase,
  type RunningService,
  startService,
} from './service-process.js';
import { benchSettings } from './settings.js';

const { values: options } = parseArgs({
  options: {
    workload: { type: 'string', default: 'document GET' },
    'b-root': { type: 'string', default: '' },
    'b-env': { type: 'string', default: '' },
    env: { type: 'string', default: '' },
    pairs: { type: 'string', default: '16' },
    'slice-seconds': { type: 'string', default: '1.5' },
    // Read by service-entry.ts: the sources through tsx rather than the build.
    'from-source': { type: 'boolean', default: false },
  },
});
const workloadName = options.workload;
const bRoot = options['b-root'];
const pairsOf = (text: string) =>
  text
    .split(' ')
    .filter(Boolean)
    .map((pair) => pair.split('=', 2) as [string, string]);
const bothEnv = pairsOf(options.env);
const bEnv = [...bothEnv, ...pairsOf(options['b-env'])];
const pairs = Number(options.pairs);
const sliceSeconds = Number(options['slice-seconds']);

const settings = benchSettings(true, process.env, ['sqlite']);
// Only the collections the read rows use matter: the rest small, so set-up is quick.
Object.assign(settings, { largeDocuments: 1_000, hubDescendants: 1_000, treeLeaves: 1_000, boardEntries: 1_000 });

function findWorkload(): HttpWorkload {
  const found = [...serviceWorkloads(settings), ...rangeWorkloads(settings)].find((w) => w.name === workloadName);
  if (!found) throw new Error(`no workload named '${workloadName}'`);
  return found;
}
const workload = findWorkload();

interface Side {
  prepared: PreparedDatabase;
  service: RunningService;
}

/** Prepares a database and starts a service on it, with `env` added to the service's environment. */
async function startSide(env: [string, string][], script?: string): Promise<Side> {
  const prepared = await prepareDatabase('sqlite', settings);
  const service = await startService(
    { ...prepared, env: { ...prepared.env, ...Object.fromEntries(env) } },
    undefined,
    1,
    script,
  );
  return { prepared, service };
}

/** The server's CPU per request over one slice of load, in microseconds. */
async function slice({ prepared, service }: Side, seconds: number): Promise<number> {
  const result = await runHttpLoad({
    ...workload,
    baseUrl: service.baseUrl,
    headers: (c) => clientHeaders(prepared.project, c),
    connections: workload.connections ?? settings.connections,
    warmupSeconds: 0,
    durationSeconds: seconds,
    serverCpuSeconds: () => service.server.cpuSeconds(),
  });
  return result.serverCpuUs;
}

const quantileOf = (values: number[], q: number) =>
  [...values].sort((x, y) => x - y)[Math.floor(q * values.length)] ?? NaN;

// Both builds are checked (and made when outdated) before any database is prepared.
const aScript = serviceEntry();
const bScript = bRoot ? serviceEntry(resolve(bRoot)) : aScript;
console.error(`A: ${serviceCommand()}; B: ${bRoot ? bScript : 'the same'}`);
const a = await startSide(bothEnv, aScript);
const b = await startSide(bEnv, bScript);
try {
  for (const side of [a, b]) await slice(side, 3);
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  for (let i = 0; i < pairs; i++) {
    // Which goes first alternates, so neither always follows the other.
    const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
    const x = await slice(first, sliceSeconds);
    const y = await slice(second, sliceSeconds);
    cpuA.push(first === a ? x : y);
    cpuB.push(first === a ? y : x);
  }
  const ratios = cpuB.map((value, i) => value / (cpuA[i] ?? NaN));
  const fmt = (value: number) => value.toFixed(3);
  console.log(
    `${workloadName}: A ${quantileOf(cpuA, 0.5).toFixed(1)} µs/request, B ${quantileOf(cpuB, 0.5).toFixed(1)} µs/request; ` +
      `B ÷ A median ${fmt(quantileOf(ratios, 0.5))} (quartiles ${fmt(quantileOf(ratios, 0.25))}–${fmt(quantileOf(ratios, 0.75))}, ${pairs} pairs)`,
  );
} finally {
  for (const side of [a, b]) {
    await side.service.server.stop();
    await side.prepared.drop();
  }
}
