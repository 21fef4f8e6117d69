// Builds the console into dist/: index.html and console.css copied, src/main.tsx bundled by esbuild
// into one minified ESM file (Preact included). Prints the script's gzipped size (limit 150 KB, §13).
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

/** dist/ from src/; answers the script's sizes. */
export async function build() {
  const esbuild = await import('esbuild');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  await esbuild.build({
    entryPoints: [join(here, 'src', 'main.tsx')],
    outfile: join(dist, 'console.js'),
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
  copyFileSync(join(here, 'src', 'index.html'), join(dist, 'index.html'));
  copyFileSync(join(here, 'src', 'console.css'), join(dist, 'console.css'));
  const code = readFileSync(join(dist, 'console.js'));
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bytes, gzipBytes } = await build();
  console.log(`@cds/console: dist/console.js ${bytes} bytes, ${gzipBytes} bytes gzip -9 (limit 153600)`);
}
