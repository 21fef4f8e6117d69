// Whether the build `npm start` runs is older than its sources. `npm run build` (and `npm install`,
// through `prepare`) builds; `npm start` (its `prestart` runs this file) only warns, on one line of
// stderr, and never writes dist/, so instances started together cannot race on it. It exits 1
// only when there is no build at all. Reads a few hundred mtimes (a few milliseconds); bin/cds.js
// uses `staleBuild` to run the sources through tsx rather than an outdated build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What `npm start` runs: the compiled service. */
export const SERVICE_ENTRY = 'dist/src/main.js';

/** Every file under `dir` (relative to `root`) that `keep` accepts; [] when `dir` does not exist. */
function filesUnder(root, dir, keep) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(root, path, keep);
    return keep(path) ? [path] : [];
  });
}

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
};

/**
 * The first source found newer than what was built from it (or built into a missing file), as
 * `{source, output}` relative to `root`; null when the build is current or there are no sources
 * (an installed package). Compares each `src/**.ts` with its `dist/src/**.js`, and the console's
 * sources (not its README.md files) with its bundle.
 */
export function staleBuild(root = ROOT) {
  for (const source of filesUnder(root, 'src', (path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))) {
    const output = join('dist', source.replace(/\.ts$/, '.js'));
    if (mtime(join(root, source)) > mtime(join(root, output))) return { source, output };
  }
  const output = join('packages', 'console', 'dist', 'console.js');
  const built = mtime(join(root, output));
  // Every file the bundle is made of; the folders' README.md files are not.
  for (const source of filesUnder(root, join('packages', 'console', 'src'), (path) => !path.endsWith('.md'))) {
    if (mtime(join(root, source)) > built) return { source, output };
  }
  return null;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!existsSync(join(ROOT, SERVICE_ENTRY))) {
    process.stderr.write(`npm start: no build (${SERVICE_ENTRY} is missing): run npm run build first\n`);
    process.exit(1);
  }
  const stale = staleBuild();
  if (stale) {
    process.stderr.write(
      `npm start: warning: starting the last build, older than the sources (${stale.source} is newer than ${stale.output}): run npm run build\n`,
    );
  }
}
