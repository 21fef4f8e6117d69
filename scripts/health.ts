/**
 * `npm run health [-- --check]`: a report on the shape of the code (issue 35), in four parts:
 *
 * 1. duplicate pairs in `src/`, with the pairs: from the `duplicates` command when it is on PATH
 *    (`duplicates --repo src --most 200`), else from jscpd (a devDependency: exact token clones of
 *    6 lines or more, a stricter measure that finds fewer pairs, so its count is not checked);
 * 2. the longest source files of `src/` and `packages/*\/src` (the top 10, and every file over
 *    400 lines);
 * 3. every folder of `src/` and `packages/*\/src` without a README.md;
 * 4. the last `npm test` run (kept by test/support/last-run-reporter.ts in
 *    node_modules/.cache/cds/last-test-run.json): wall time, test count, the 10 slowest files.
 *
 * Exits 0: it is a report. With `--check` it exits 1 when the code is over a target: more than 25
 * duplicate pairs (as `duplicates` counts them), a source file over 400 lines, a folder without a
 * README.md, or a full `npm test` run over 8 minutes (a partial run, `npm test -- <files>`, or no
 * run kept, is not checked).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAST_TEST_RUN, type LastTestRun } from '../test/support/last-run-reporter.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = { duplicatePairs: 25, fileLines: 400, testMinutes: 8 };
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css|html)$/;

const check = process.argv.includes('--check');
const over: string[] = [];
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const print = (line = '') => process.stdout.write(`${line}\n`);
// Piped into `head`: stop quietly when the reader has gone.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));

/** The source roots: `src` and each `packages/<name>/src`. */
function sourceRoots(): string[] {
  const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'packages', entry.name, 'src')))
    .map((entry) => join('packages', entry.name, 'src'));
  return ['src', ...packages.sort()];
}

/** `dir` (relative to the root) and every folder below it. */
function folders(dir: string): string[] {
  const below = readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return [dir, ...below.flatMap((name) => folders(join(dir, name)))];
}

function filesIn(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(dir, entry.name));
}

function lineCount(file: string): number {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** A pair: `a.ts:10-24 ~ b.ts:40-54`, paths relative to `src/`. */
interface Duplicates {
  tool: string;
  count: number;
  rows: string[];
  /** Whether the count is the one the target is set in. */
  checked: boolean;
}

function duplicatesCommand(): Duplicates | null {
  const run = spawnSync('duplicates', ['--repo', 'src', '--most', '200'], { cwd: ROOT, encoding: 'utf8' });
  if (run.error) return null;
  const lines = run.stdout.trimEnd().split('\n');
  const head = lines[0] ?? '';
  const count = head.startsWith('no duplicates') ? 0 : Number(/^(\d+) pairs/.exec(head)?.[1] ?? Number.NaN);
  return { tool: `\`duplicates --repo src --most 200\`: ${head}`, count, rows: lines.slice(1), checked: true };
}

interface JscpdReport {
  duplicates: {
    lines: number;
    firstFile: { name: string; start: number; end: number };
    secondFile: { name: string; start: number; end: number };
  }[];
}

function jscpd(): Duplicates | null {
  const executable = join(ROOT, 'node_modules', '.bin', 'jscpd');
  if (!existsSync(executable)) return null;
  const out = mkdtempSync(join(tmpdir(), 'cds-health-'));
  try {
    const run = spawnSync(
      executable,
      ['--min-lines', '6', '--reporters', 'json', '--output', out, '--silent', join(ROOT, 'src')],
      { encoding: 'utf8' },
    );
    const file = join(out, 'jscpd-report.json');
    if (run.error || !existsSync(file)) return null;
    const report = JSON.parse(readFileSync(file, 'utf8')) as JscpdReport;
    const side = (f: { name: string; start: number; end: number }) =>
      `${relative(join(ROOT, 'src'), join(ROOT, 'src', f.name))}:${f.start}-${f.end}`;
    const rows = report.duplicates.map((d, i) => `J${i + 1} ${side(d.firstFile)} ~ ${side(d.secondFile)}`);
    return {
      tool: 'jscpd (exact token clones of 6 lines or more: not the measure of the target, which needs the duplicates command)',
      count: report.duplicates.length,
      rows,
      checked: false,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function reportDuplicates(): void {
  print('## Duplicate pairs in src/');
  const found = duplicatesCommand() ?? jscpd();
  if (!found) {
    print(`the count needs the \`duplicates\` command (or jscpd, npm install); target ≤ ${TARGETS.duplicatePairs}`);
    print();
    return;
  }
  const mark = found.checked && found.count > TARGETS.duplicatePairs ? '  ← over' : '';
  print(`${found.count} pairs${found.checked ? ` (target ≤ ${TARGETS.duplicatePairs})` : ''}${mark}`);
  print(`by ${found.tool}`);
  if (mark) over.push(`${plural(found.count, 'duplicate pair')} (target ≤ ${TARGETS.duplicatePairs})`);
  for (const row of found.rows) print(`  ${row}`);
  print();
}

function reportLongFiles(roots: string[]): void {
  print(`## Longest source files (${roots.join(', ')})`);
  const files = roots
    .flatMap(folders)
    .flatMap(filesIn)
    .filter((file) => SOURCE.test(file))
    .map((file) => ({ file, lines: lineCount(file) }))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  const long = files.filter((f) => f.lines > TARGETS.fileLines);
  const shown = [...files.slice(0, 10), ...long.slice(10)];
  for (const { file, lines } of shown) {
    print(`  ${String(lines).padStart(5)}  ${file}${lines > TARGETS.fileLines ? `  ← over ${TARGETS.fileLines}` : ''}`);
  }
  print(`${long.length} of ${files.length} files over ${TARGETS.fileLines} lines`);
  if (long.length > 0) over.push(`${plural(long.length, 'file')} over ${TARGETS.fileLines} lines`);
  print();
}

function reportReadmes(roots: string[]): void {
  print('## Folders without a README.md');
  const all = roots.flatMap(folders);
  const missing = all.filter((dir) => !existsSync(join(ROOT, dir, 'README.md')));
  for (const dir of missing) print(`  ${dir}`);
  print(`${missing.length} of ${all.length} folders without one`);
  if (missing.length > 0) over.push(`${plural(missing.length, 'folder')} without a README.md`);
  print();
}

function reportLastTestRun(): void {
  print('## Last npm test run');
  const file = join(ROOT, LAST_TEST_RUN);
  if (!existsSync(file)) {
    print(`none kept (${LAST_TEST_RUN}): run npm test`);
    return;
  }
  const run = JSON.parse(readFileSync(file, 'utf8')) as LastTestRun;
  const testFiles = folders('test')
    .flatMap(filesIn)
    .filter((f) => f.endsWith('.test.ts')).length;
  const full = run.files.length >= testFiles && run.reason !== 'interrupted';
  const minutes = run.wallMs / 60_000;
  const late = full && minutes > TARGETS.testMinutes;
  const { total, passed, failed, skipped } = run.tests;
  print(
    `${run.startedAt}: ${minutes.toFixed(1)} min wall (target ≤ ${TARGETS.testMinutes})${late ? '  ← over' : ''}, ` +
      `${total} tests (${passed} passed, ${failed} failed, ${skipped} skipped) in ${run.files.length} files` +
      (full
        ? ''
        : ` — a partial run (${testFiles} test files exist${run.reason === 'interrupted' ? ', interrupted' : ''}): not checked`),
  );
  if (late) over.push(`npm test took ${minutes.toFixed(1)} min (target ≤ ${TARGETS.testMinutes})`);
  print('slowest files:');
  for (const { file: name, ms } of [...run.files].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    print(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`);
  }
}

const roots = sourceRoots();
reportDuplicates();
reportLongFiles(roots);
reportReadmes(roots);
reportLastTestRun();
if (check) {
  print();
  print(over.length === 0 ? 'check: within every target' : `check: over target: ${over.join('; ')}`);
  if (over.length > 0) process.exitCode = 1;
}
