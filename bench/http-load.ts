/**
 * One HTTP load: a load generator (wrk when installed, else autocannon in this process) with a
 * fixed number of connections, an untimed warm-up, then timed slices, each after a slice of its
 * baseline when it has one. Requests come from a generator (path, method, body), each connection
 * may carry its own headers (one user per connection), and latencies are recorded from every
 * response at sub-millisecond resolution. Any answer other than the expected status (with wrk:
 * any status of 400 or above) fails the load.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { runWrk } from './wrk-load.js';

/** The program that sends a load's requests: autocannon runs in the bench's process, wrk in its own. */
export type LoadGenerator = { kind: 'autocannon' } | { kind: 'wrk'; executable: string };

/** One request of a load. */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: string;
  /** Sent as this user (an index into the target's users) instead of the connection's. */
  user?: number;
}

/** Where and what one autocannon run sends. */
export interface LoadTarget {
  baseUrl: string;
  /** The next request; `i` counts requests of the whole load. */
  request: (i: number) => LoadRequest;
  /** Headers of connection `c` (autocannon connections are numbered as they are set up). */
  headers: (c: number) => Record<string, string>;
  expectStatus: number;
  connections: number;
  /** Headers of a request sent as user `u` (`LoadRequest.user`); the connection's when absent. */
  userHeaders?: (u: number) => Record<string, string>;
}

/** A measured load: a target, its durations, and the baseline it is paired with. */
export interface HttpLoadSpec extends LoadTarget {
  /** autocannon when absent. */
  generator?: LoadGenerator;
  warmupSeconds: number;
  durationSeconds: number;
  /** Measured slices (default 1). */
  rounds?: number;
  /** Loaded before each slice, for half its time (its server is warm already). */
  baselineTarget?: LoadTarget;
  /** CPU seconds the server process has used so far (to report its CPU per request). */
  serverCpuSeconds?: () => number;
}

/** The figures of one load. */
export interface HttpLoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with another status, and connection errors or timeouts. */
  unexpected: number;
  errors: number;
  /** Server CPU per answered request, in microseconds, and the share of one core it kept busy. */
  serverCpuUs: number;
  serverBusy: number;
  /** The load generator's CPU per answered request, in microseconds (with autocannon: this process's). */
  generatorCpuUs: number;
  /** Cores of the whole machine busy (or taken by the hypervisor) while measured (Linux /proc/stat). */
  machineBusy: number;
  /** With a baseline: its rate over its slices, and each round's ratio of the two rates. */
  baselineRate?: number;
  roundRatios?: number[];
  /** Set when any answer was unexpected: what a probe request got. */
  failure?: string;
}

const MAX_SAMPLES = 4_000_000;
const samples = new Float64Array(MAX_SAMPLES);

/** The value at quantile `q` of the first `n` samples, sorted in place. */
export function quantile(values: Float64Array, n: number, q: number): number {
  if (n === 0) return Number.NaN;
  const sorted = values.subarray(0, n).sort();
  return sorted[Math.min(n - 1, Math.floor(q * n))] ?? Number.NaN;
}

/** What one slice counted; latencies went to `samples` from `recordAt` on, when given. */
interface SliceCount {
  recorded: number;
  unexpected: number;
  errors: number;
  seconds: number;
  /** Latencies written to `samples` (wrk's histogram, corrected for coordinated omission, holds more than the answers). */
  sampled: number;
  /** CPU seconds of the load generator. */
  generatorSeconds: number;
}

function loadSlice(
  generator: LoadGenerator | undefined,
  spec: LoadTarget,
  seconds: number,
  recordAt: number | null,
): Promise<SliceCount> {
  return generator?.kind === 'wrk'
    ? wrkSlice(generator.executable, spec, seconds, recordAt)
    : cannon(spec, seconds, recordAt);
}

async function wrkSlice(
  executable: string,
  spec: LoadTarget,
  seconds: number,
  recordAt: number | null,
): Promise<SliceCount> {
  const slice = await runWrk(executable, spec, seconds);
  let at = recordAt ?? 0;
  if (recordAt !== null) {
    for (const [ms, count] of slice.latencies) {
      const end = Math.min(MAX_SAMPLES, at + count);
      samples.fill(ms, at, end);
      at = end;
    }
  }
  return {
    recorded: slice.answered,
    unexpected: slice.unexpected,
    errors: slice.errors,
    seconds: slice.seconds,
    sampled: at - (recordAt ?? 0),
    generatorSeconds: slice.cpuSeconds,
  };
}

async function cannon(spec: LoadTarget, seconds: number, recordAt: number | null): Promise<SliceCount> {
  let counter = 0;
  let recorded = 0;
  let unexpected = 0;
  let connection = 0;
  let finish: (error: unknown, result: autocannon.Result) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: spec.baseUrl,
      connections: spec.connections,
      duration: seconds,
      timeout: 10,
      setupClient: (client) => {
        client.setHeaders({ 'content-type': 'application/json', ...spec.headers(connection++) });
      },
      requests: [
        {
          setupRequest: (request) => {
            const next = spec.request(counter++);
            let headers = request.headers ?? {};
            // autocannon writes a body's length into the headers it builds it with: a request with
            // no body, after one with a body, must not carry it.
            if (next.body === undefined && 'Content-Length' in headers) {
              const { 'Content-Length': _length, ...rest } = headers;
              headers = rest;
            }
            if (next.user !== undefined && spec.userHeaders) headers = { ...headers, ...spec.userHeaders(next.user) };
            return { ...request, method: next.method, path: next.path, body: next.body, headers };
          },
        },
      ],
    },
    (error: unknown, result: autocannon.Result) => finish(error, result),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode !== spec.expectStatus) unexpected += 1;
    else {
      if (recordAt !== null && recordAt + recorded < MAX_SAMPLES) samples[recordAt + recorded] = responseTime;
      recorded += 1;
    }
  });
  // autocannon stops itself after `duration`; this bounds a run whose server stopped answering.
  const guard = setTimeout(() => instance.stop(), (seconds + 30) * 1000);
  const cpuBefore = process.cpuUsage();
  try {
    const result = await done;
    const cpu = process.cpuUsage(cpuBefore);
    const generatorSeconds = (cpu.user + cpu.system) / 1e6;
    const sampled = recordAt === null ? 0 : Math.max(0, Math.min(recorded, MAX_SAMPLES - recordAt));
    return { recorded, unexpected, errors: result.errors, seconds: result.duration, sampled, generatorSeconds };
  } finally {
    clearTimeout(guard);
  }
}

/** What a probe request of the load answers (for a failed load's report). */
async function probe(spec: LoadTarget): Promise<string> {
  const request = spec.request(0);
  return fetch(`${spec.baseUrl}${request.path}`, {
    method: request.method,
    headers: { 'content-type': 'application/json', ...spec.headers(0) },
    ...(request.body !== undefined ? { body: request.body } : {}),
  }).then(
    async (response) => `${response.status} ${(await response.text()).slice(0, 200)}`,
    (error: unknown) => String(error),
  );
}

/**
 * Warms up, then measures in `rounds` slices of `durationSeconds / rounds`; with a `baselineTarget`,
 * each slice follows a slice of the baseline half as long, so the two rates come from the same
 * minutes of a machine whose speed moves. A load with any unexpected answer carries a `failure`.
 */
export async function runHttpLoad(spec: HttpLoadSpec): Promise<HttpLoadResult> {
  const { generator } = spec;
  if (spec.warmupSeconds > 0) await loadSlice(generator, spec, spec.warmupSeconds, null);
  const rounds = spec.rounds ?? 1;
  const slice = spec.durationSeconds / rounds;
  const total = emptyCount();
  const base = emptyCount();
  const roundRatios: number[] = [];
  let cpu = 0;
  let machineBusySeconds = 0;
  for (let round = 0; round < rounds; round++) {
    const baseline = spec.baselineTarget ? await loadSlice(generator, spec.baselineTarget, slice / 2, null) : null;
    const cpuBefore = spec.serverCpuSeconds?.() ?? Number.NaN;
    const machineBefore = machineCpuSeconds();
    const counted = await loadSlice(generator, spec, slice, total.sampled);
    cpu += (spec.serverCpuSeconds?.() ?? Number.NaN) - cpuBefore;
    machineBusySeconds += machineCpuSeconds() - machineBefore;
    add(total, counted);
    if (baseline) {
      add(base, baseline);
      roundRatios.push(counted.recorded / counted.seconds / (baseline.recorded / baseline.seconds));
    }
  }
  const recorded = Math.min(total.sampled, MAX_SAMPLES);
  const result: HttpLoadResult = {
    requests: total.recorded + total.unexpected,
    requestsPerSecond: total.recorded / total.seconds,
    p50Ms: quantile(samples, recorded, 0.5),
    p99Ms: quantile(samples, recorded, 0.99),
    unexpected: total.unexpected,
    errors: total.errors,
    serverCpuUs: (cpu * 1e6) / (total.recorded + total.unexpected),
    serverBusy: cpu / total.seconds,
    generatorCpuUs: (total.generatorSeconds * 1e6) / (total.recorded + total.unexpected),
    machineBusy: machineBusySeconds / total.seconds,
    ...(spec.baselineTarget ? { baselineRate: base.recorded / base.seconds, roundRatios } : {}),
  };
  if (total.unexpected > 0 || total.errors > 0) {
    result.failure = `${total.unexpected} unexpected answers, ${total.errors} errors; ${spec.request(0).method} ${spec.request(0).path} got ${await probe(spec)}`;
  } else if (base.unexpected > 0 || base.errors > 0) {
    result.failure = `baseline: ${base.unexpected} unexpected answers, ${base.errors} errors`;
  }
  return result;
}

/** Busy CPU seconds of the whole machine since boot (the `cpu` line of /proc/stat); NaN elsewhere. */
export function machineCpuSeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // user nice system idle iowait irq softirq steal …, in USER_HZ (100 per second).
    const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / 100;
  } catch {
    return Number.NaN;
  }
}

const emptyCount = (): SliceCount => ({
  recorded: 0,
  unexpected: 0,
  errors: 0,
  seconds: 0,
  sampled: 0,
  generatorSeconds: 0,
});

function add(sum: SliceCount, part: SliceCount): void {
  sum.recorded += part.recorded;
  sum.unexpected += part.unexpected;
  sum.errors += part.errors;
  sum.seconds += part.seconds;
  sum.sampled += part.sampled;
  sum.generatorSeconds += part.generatorSeconds;
}
