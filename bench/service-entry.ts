/**
 * What the benchmarks' service processes run. By default the build `npm start` runs
 * (`dist/src/main.js`, plain `node` with its flags), so figures are production figures; a build
 * older than its sources (scripts/build-state.mjs) is rebuilt first with `npm run build`, and a
 * build that fails stops the bench with a message saying so. `--from-source` runs the sources
 * through tsx instead (`src/main.ts`): for A/B runs of uncommitted work without building.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_ENTRY, staleBuild } from '../scripts/build-state.mjs';
import { ROOT } from './child.js';

/** The service's sources, run through tsx with `--from-source`. */
export const SOURCE_ENTRY = 'src/main.ts';

/** Whether this bench runs the sources (`--from-source`) rather than the build. */
export const fromSource = process.argv.includes('--from-source');

const current = new Set<string>();

/**
 * The entry point of the service of the checkout at `root` (this one by default): `SOURCE_ENTRY`
 * with `--from-source`, else `SERVICE_ENTRY` once the build there is current (built here when it
 * is missing or older than the sources; the process exits 1 with a message when that fails).
 * Relative to this checkout's root (the service's working directory), absolute for another one.
 */
export function serviceEntry(root = ROOT): string {
  const entry = fromSource ? SOURCE_ENTRY : SERVICE_ENTRY;
  if (!fromSource && !current.has(root)) {
    ensureBuild(root);
    current.add(root);
  }
  return root === ROOT ? entry : join(root, entry);
}

/** How the service runs, for the reports: `node <entry>` or `tsx <entry>`. */
export function serviceCommand(): string {
  return fromSource ? `tsx ${SOURCE_ENTRY} (--from-source)` : `node ${SERVICE_ENTRY}`;
}

/** Builds the checkout at `root` when its build is missing or older than its sources. */
function ensureBuild(root: string): void {
  const entry = join(root, SERVICE_ENTRY);
  const missing = !existsSync(entry);
  const stale = missing ? null : staleBuild(root);
  if (!missing && !stale) return;
  const why = stale ? `${stale.source} is newer than ${stale.output}` : `no ${SERVICE_ENTRY}`;
  process.stderr.write(`bench: building ${root} (${why}): npm run build\n`);
  try {
    // Its output on stderr: stdout carries the bench's report.
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 2, 2] });
  } catch {
    // tsc writes its output even when it reports errors: mark the build outdated, so that no later
    // run (nor npm start's check) takes what it wrote for a current build.
    if (existsSync(entry)) utimesSync(entry, 0, 0);
    refuse(
      `npm run build failed in ${root} (its errors are above). The bench runs the build npm start runs ` +
        `(${SERVICE_ENTRY}); fix the build, or run the sources with --from-source.`,
    );
  }
  const after = staleBuild(root);
  if (after) refuse(`after npm run build, ${after.source} is still newer than ${after.output} in ${root}`);
}

function refuse(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}
