// Builds the console into dist/: index.html and console.css copied, src/main.tsx bundled by esbuild
// into one minified ESM file (Preact included). Prints the script's gzipped size (limit 150 KB, §13).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

/**
 * dist/ from src/; answers the script's sizes. The files are written to a folder of their own and
 * renamed into dist/ one by one, so a service serving dist/ meanwhile (a browser test while another
 * rebuilds) always reads a whole file, old or new, never a missing or half-written one.
 */
export async function build() {
  const esbuild = await import('esbuild');
  const staging = join(here, `.dist-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  mkdirSync(dist, { recursive: true });
  try {
    await esbuild.build({
      entryPoints: [join(here, 'src', 'main.tsx')],
      outfile: join(staging, 'console.js'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      minify: true,
      legalComments: 'none',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      logLevel: 'warning',
    });
    copyFileSync(join(here, 'src', 'index.html'), join(staging, 'index.html'));
    copyFileSync(join(here, 'src', 'console.css'), join(staging, 'console.css'));
    const built = readdirSync(staging);
    for (const name of readdirSync(dist)) if (!built.includes(name)) rmSync(join(dist, name), { recursive: true });
    for (const name of built) renameSync(join(staging, name), join(dist, name));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const code = readFileSync(join(dist, 'console.js'));
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bytes, gzipBytes } = await build();
  console.log(`@cds/console: dist/console.js ${bytes} bytes, ${gzipBytes} bytes gzip -9 (limit 153600)`);
}
