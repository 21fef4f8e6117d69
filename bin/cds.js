#!/usr/bin/env node
// Runs the compiled CLI when it is built and current (a checkout after npm install or npm run
// build), else the TypeScript source through tsx (a checkout whose sources changed since the last
// build: scripts/build-state.mjs compares their mtimes), or the compiled CLI if tsx is not installed.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleBuild } from '../scripts/build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');
const built = existsSync(compiled);
const tsx = built && staleBuild(root) === null ? null : await import('tsx/esm/api').catch(() => null);
if (tsx) {
  tsx.register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
} else {
  await import(pathToFileURL(compiled).href);
}
