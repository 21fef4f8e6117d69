/**
 * One HTTP load: autocannon with a fixed number of connections, an untimed warm-up, then a timed
 * run. Requests come from a generator (path, method, body), each connection may carry its own
 * headers (one user per connection), and latencies are recorded from every response at
 * sub-millisecond resolution. Any answer other than the expected status fails the load.
 */
import autocannon from 'autocannon';

/** One request of a load. */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  body?: string;
}

/** What to load and how. */
export interface HttpLoadSpec {
  baseUrl: string;
  /** The next request; `i` counts requests of the whole load. */
  request: (i: number) => LoadRequest;
  /** Headers of connection `c` (autocannon connections are numbered as they are set up). */
  headers: (c: number) => Record<string, string>;
  expectStatus: number;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
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

async function cannon(spec: HttpLoadSpec, seconds: number, record: boolean): Promise<HttpLoadResult> {
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
            return { ...request, method: next.method, path: next.path, body: next.body };
          },
        },
      ],
    },
    (error: unknown, result: autocannon.Result) => finish(error, result),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode !== spec.expectStatus) unexpected += 1;
    else if (record && recorded < MAX_SAMPLES) samples[recorded++] = responseTime;
  });
  // autocannon stops itself after `duration`; this bounds a run whose server stopped answering.
  const guard = setTimeout(() => instance.stop(), (seconds + 30) * 1000);
  try {
    const result = await done;
    const total = recorded + unexpected;
    return {
      requests: total,
      requestsPerSecond: recorded / result.duration,
      p50Ms: quantile(samples, recorded, 0.5),
      p99Ms: quantile(samples, recorded, 0.99),
      unexpected,
      errors: result.errors,
      serverCpuUs: Number.NaN,
      serverBusy: Number.NaN,
    };
  } finally {
    clearTimeout(guard);
  }
}

/** Warms up, then measures; a load with any unexpected answer carries a `failure`. */
export async function runHttpLoad(spec: HttpLoadSpec): Promise<HttpLoadResult> {
  if (spec.warmupSeconds > 0) await cannon(spec, spec.warmupSeconds, false);
  const cpuBefore = spec.serverCpuSeconds?.() ?? Number.NaN;
  const result = await cannon(spec, spec.durationSeconds, true);
  const cpu = (spec.serverCpuSeconds?.() ?? Number.NaN) - cpuBefore;
  result.serverCpuUs = (cpu * 1e6) / result.requests;
  result.serverBusy = cpu / spec.durationSeconds;
  if (result.unexpected > 0 || result.errors > 0) {
    const probe = spec.request(0);
    const answer = await fetch(`${spec.baseUrl}${probe.path}`, {
      method: probe.method,
      headers: { 'content-type': 'application/json', ...spec.headers(0) },
      ...(probe.body !== undefined ? { body: probe.body } : {}),
    }).then(
      async (response) => `${response.status} ${(await response.text()).slice(0, 200)}`,
      (error: unknown) => String(error),
    );
    result.failure = `${result.unexpected} unexpected answers, ${result.errors} errors; ${probe.method} ${probe.path} got ${answer}`;
  }
  return result;
}
