/**
 * Vitest global setup: bundles the `cds` command (src/cli/main.ts), and the service's entry
 * (src/main.ts, for every test that starts the service as a process: server-process.ts), into one
 * ESM file each before the run, so each such test spawns plain Node (about a third of the CPU of
 * starting it through tsx, which transpiles every module on each start). Packages stay external
 * and resolve from the checkout's node_modules, except the pure-JS ones that load as hundreds of
 * small ES modules (`INLINED`): typebox alone is 683 files, about half a second of every start of
 * a `cds` command or a service process. `test/e2e/transfer-cli.test.ts` still runs the real
 * `bin/cds.js`.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..', '..');

/** Where the bundled CLI is written (git-ignored). */
export const CLI_BUNDLE = join(ROOT, '.test-build', 'cli.mjs');
/** Where the bundled service entry is written (git-ignored). */
export const SERVICE_BUNDLE = join(ROOT, '.test-build', 'main.mjs');

/** Packages bundled in: plain ES modules with no native parts and no state shared with an external package. */
const INLINED = new Set(['typebox', 'jose', 'uuid', '@marcbachmann/cel-js']);

/** Every other package the service may import (a package's subpaths follow it). */
function externalPackages(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const names = ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) =>
    Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}),
  );
  return names.filter((name) => !INLINED.has(name));
}

export default async function bundleCli(): Promise<void> {
  await Promise.all([
    bundle(join(ROOT, 'src', 'cli', 'main.ts'), CLI_BUNDLE),
    bundle(join(ROOT, 'src', 'main.ts'), SERVICE_BUNDLE),
  ]);
}

async function bundle(entry: string, outfile: string): Promise<void> {
  const temporary = `${outfile}.${process.pid}.tmp`;
  await build({
    entryPoints: [entry],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externalPackages(),
    logLevel: 'warning',
  });
  renameSync(temporary, outfile);
}
