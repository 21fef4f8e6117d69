/**
 * The probe `npm run soak` preloads into each service process (`node <the flags of npm start>
 * --import ./bench/soak-probe.mjs dist/src/main.js`; plain JavaScript, so that the service runs
 * without tsx): it appends, every SOAK_PROBE_MS, one JSON line
 * `{at, rss, anon, heapUsed, heapTotal, young, p99, max}` to SOAK_PROBE_FILE: bytes, where `anon` is the anonymous part of the RSS (without the pages of
 * files mapped in, such as SQLite's `mmap_size` window) and `young` the part of V8's committed
 * heap (`heapTotal`) that is its young generation, which V8 grows up to `--max-semi-space-size`
 * as the allocation rate asks; event-loop delay in ms, measured by `monitorEventLoopDelay` since
 * the previous line. With SOAK_HEAP_MINUTES (e.g. `10,30`) and SOAK_HEAP_DIR, it also writes a V8
 * heap snapshot at each of those minutes (`heap-<minute>.heapsnapshot`), to diff in DevTools.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const file = process.env.SOAK_PROBE_FILE;
const every = Number(process.env.SOAK_PROBE_MS ?? 60_000);
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
/** RssAnon of /proc/self/status in bytes (Linux), or NaN elsewhere. */
function anonymousRss() {
  try {
    const kib = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib ? Number(kib) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The committed size of V8's young generation (the semi-spaces and young large objects), in bytes. */
function youngGeneration() {
  const young = getHeapSpaceStatistics().filter((space) => space.space_name.startsWith('new_'));
  return young.reduce((sum, space) => sum + space.space_size, 0);
}

if (file) {
  setInterval(() => {
    const { rss, heapUsed, heapTotal } = process.memoryUsage();
    const line = {
      at: Date.now(),
      rss,
      anon: anonymousRss(),
      heapUsed,
      heapTotal,
      young: youngGeneration(),
      p99: delay.percentile(99) / 1e6,
      max: delay.max / 1e6,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    delay.reset();
  }, every).unref();
}

const heapDir = process.env.SOAK_HEAP_DIR;
for (const minute of (process.env.SOAK_HEAP_MINUTES ?? '').split(',').filter(Boolean).map(Number)) {
  if (!heapDir) break;
  setTimeout(() => writeHeapSnapshot(join(heapDir, `heap-${minute}.heapsnapshot`)), minute * 60_000).unref();
}
