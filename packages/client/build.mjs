// Builds @cds/client: ESM + declarations with tsc into dist/, and the browser bundle
// dist/browser.js (one self-contained minified ESM file) with esbuild. Prints the bundle's sizes.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The browser build loads `websocket-browser.ts` where Node loads `ws` (websocket-node.ts). */
const browserWebSocket = {
  name: 'browser-websocket',
  setup(build) {
    build.onResolve({ filter: /\/websocket-node\.js$/ }, () => ({ path: join(here, 'src', 'websocket-browser.ts') }));
  },
};

/** Bundles src/index.ts for browsers into `outfile`: one minified ESM file that imports nothing. */
export async function bundle(outfile) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(here, 'src', 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    plugins: [browserWebSocket],
    logLevel: 'warning',
  });
  const code = readFileSync(outfile);
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** dist/: ESM and declarations (tsc), and dist/browser.js. */
export async function build() {
  rmSync(join(here, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  return bundle(join(here, 'dist', 'browser.js'));
}

// `node build.mjs` builds dist/; `node build.mjs --browser-out FILE` only bundles, into FILE (tests).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--browser-out');
  const out = at > 0 ? process.argv[at + 1] : undefined;
  const { bytes, gzipBytes } = out ? await bundle(out) : await build();
  console.log(`@cds/client: ${out ?? 'dist/browser.js'} ${bytes} bytes, ${gzipBytes} bytes gzip -9 (limit 20480)`);
}
