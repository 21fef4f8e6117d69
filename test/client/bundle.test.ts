/** §12: the package builds (tsc + esbuild) and its browser bundle is self-contained and at most 20 KiB gzip -9. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const PACKAGE = join(import.meta.dirname, '..', '..', 'packages', 'client');
const LIMIT = 20_480;

describe('@cds/client build', () => {
  it('builds ESM, declarations and a self-contained browser bundle under 20,480 bytes gzip -9', () => {
    execFileSync(process.execPath, [join(PACKAGE, 'build.mjs')], { stdio: 'pipe' });
    for (const file of ['index.js', 'index.d.ts', 'types.d.ts', 'browser.js']) {
      expect(existsSync(join(PACKAGE, 'dist', file)), file).toBe(true);
    }
    const bundle = readFileSync(join(PACKAGE, 'dist', 'browser.js'));
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    console.log(`@cds/client dist/browser.js: ${bundle.length} bytes, ${gzipped} bytes gzip -9 (limit ${LIMIT})`);
    expect(gzipped).toBeLessThanOrEqual(LIMIT);
    // One file, no imports: neither static nor dynamic (the `ws` loader is stubbed out).
    const text = bundle.toString();
    expect(text).not.toMatch(/\bimport\s*\(|\bimport\s*["'{*]|\bfrom\s*["']/);
    expect(text).not.toContain('require(');

    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@cds/client');
    expect(Object.keys(manifest.exports['.'])).toEqual(['types', 'browser', 'import']);
    expect(manifest.exports['.'].browser).toBe('./dist/browser.js');
    expect(manifest.dependencies ?? {}).toEqual({});
  });
});
