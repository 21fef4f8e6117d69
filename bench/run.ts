/**
 * `npm run bench [-- --quick] [-- --only <workload>]`: runs the benchmark workloads and prints
 * each one's Markdown table (the figures of BENCHMARKS.md); results also go to
 * bench/results/<workload>.json. Loopback only; every loop is bounded in count and time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fanoutMarkdown, runFanoutBench } from './fanout.js';

/** A workload: runs, and renders its result. */
interface Workload {
  run(quick: boolean): Promise<unknown>;
  markdown(result: unknown): string;
}

const workloads: Record<string, Workload> = {
  fanout: {
    run: (quick) => runFanoutBench({ quick, engines: ['sqlite', 'postgres'], log: console.log }),
    markdown: (result) => fanoutMarkdown(result as Parameters<typeof fanoutMarkdown>[0]),
  },
};

const quick = process.argv.includes('--quick');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
const selected = Object.entries(workloads).filter(([name]) => !only || name === only);
if (selected.length === 0) throw new Error(`Unknown workload '${only}'; known: ${Object.keys(workloads).join(', ')}`);

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const machine = `${process.platform} ${process.arch}, Node ${process.version}, ${cpus().length} cores`;
for (const [name, workload] of selected) {
  const result = await workload.run(quick);
  writeFileSync(
    new URL(`./results/${name}.json`, import.meta.url),
    `${JSON.stringify({ machine, quick, result }, null, 2)}\n`,
  );
  console.log(`\n## ${name}${quick ? ' (quick)' : ''} — ${machine}\n\n${workload.markdown(result)}\n`);
}
