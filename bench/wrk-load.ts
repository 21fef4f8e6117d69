/**
 * One slice of an HTTP load driven by wrk (C, one thread) instead of autocannon. Where the load
 * generator shares the service's cores, a cheaper one leaves the service more of them: on loopback
 * wrk spends about 16 µs of CPU per request where autocannon spends 51–80 (BENCHMARKS.md).
 * The requests are built here as `http-load.ts` numbers them (request i on connection i mod
 * connections, or as its own user) and written to a file that `wrk-requests.lua` cycles through.
 * Differences from autocannon: an answer counts as unexpected when its status is 400 or above
 * (wrk checks no exact status), and latencies are wrk's histogram, corrected for coordinated
 * omission. wrk takes whole seconds, so a slice runs until this process interrupts it.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadTarget } from './http-load.js';

const SCRIPT = fileURLToPath(new URL('./wrk-requests.lua', import.meta.url));
/** Distinct requests of a slice (the generator's sequence, cycled through by wrk). */
const DISTINCT_REQUESTS = 10_000;
/** USER_HZ of /proc/self/stat. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The wrk executable on PATH, if any. */
export function wrkExecutable(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'wrk');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** What one wrk slice counted. */
export interface WrkSlice {
  answered: number;
  unexpected: number;
  errors: number;
  seconds: number;
  /** wrk's own CPU time. */
  cpuSeconds: number;
  /** Latency histogram: [milliseconds, count]. */
  latencies: Array<[number, number]>;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  statusErrors: number;
  socketErrors: number;
  timeouts: number;
  cpuTicks: number;
}

/** Runs `target` for `seconds` with wrk, one thread and the target's connections. */
export async function runWrk(executable: string, target: LoadTarget, seconds: number): Promise<WrkSlice> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-wrk-'));
  const file = join(dir, 'requests');
  try {
    writeFileSync(file, requestRecords(target));
    const output = await runFor(executable, target, file, seconds);
    const [summaryLine = '', ...histogram] = output.trim().split('\n');
    const summary = JSON.parse(summaryLine.slice(summaryLine.indexOf('{'))) as WrkSummary;
    return {
      answered: summary.requests - summary.statusErrors,
      unexpected: summary.statusErrors,
      errors: summary.socketErrors + summary.timeouts,
      seconds: summary.durationUs / 1e6,
      cpuSeconds: summary.cpuTicks / CLOCK_TICKS_PER_SECOND,
      latencies: histogram.map((line) => {
        const [us = 0, count = 0] = line.split(' ').map(Number);
        return [us / 1000, count];
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs wrk until `seconds` have passed, then interrupts it (it then reports as at its end). */
function runFor(executable: string, target: LoadTarget, file: string, seconds: number): Promise<string> {
  const args = ['-t1', `-c${target.connections}`, `-d${Math.ceil(seconds) + 60}s`, '--timeout', '10s'];
  const child = spawn(executable, [...args, '-s', SCRIPT, target.baseUrl], {
    env: { ...process.env, WRK_REQUESTS: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const stop = setTimeout(() => child.kill('SIGINT'), seconds * 1000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(stop);
      const output = Buffer.concat(chunks).toString();
      // wrk prints its report after the script's first line: the JSON line is the script's.
      const json = output.indexOf('{"requests"');
      if (json < 0) reject(new Error(`wrk exited with ${code}: ${stderr.trim() || output.trim()}`));
      else resolve(output.slice(json));
    });
  });
}

/** The slice's raw HTTP requests, separated by NUL bytes. */
function requestRecords(target: LoadTarget): string {
  const host = new URL(target.baseUrl).host;
  const records: string[] = [];
  for (let i = 0; i < DISTINCT_REQUESTS; i++) {
    const next = target.request(i);
    const headers: Record<string, string> = {
      host,
      'content-type': 'application/json',
      ...target.headers(i % target.connections),
      ...(next.user !== undefined && target.userHeaders ? target.userHeaders(next.user) : {}),
    };
    if (next.body !== undefined) headers['content-length'] = String(Buffer.byteLength(next.body));
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    records.push(`${next.method} ${next.path} HTTP/1.1\r\n${head.join('')}\r\n${next.body ?? ''}`);
  }
  return records.join('\0');
}
