/**
 * The service as `npm run soak` runs it: `src/main.ts` plus a probe that appends, every
 * SOAK_PROBE_MS, one JSON line `{at, rss, heapUsed, p99, max}` (bytes; event-loop delay in ms,
 * measured by `monitorEventLoopDelay` since the previous line) to SOAK_PROBE_FILE.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SOAK_PROBE_FILE;
const every = Number(process.env.SOAK_PROBE_MS ?? 60_000);
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
if (file) {
  setInterval(() => {
    const { rss, heapUsed } = process.memoryUsage();
    const line = { at: Date.now(), rss, heapUsed, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    delay.reset();
  }, every).unref();
}

await import('../src/main.js');
