/**
 * A vitest reporter (vitest.config.ts, beside the default one) that keeps the timing of the last
 * `npm test` run in `node_modules/.cache/cds/last-test-run.json` for `npm run health`: wall time,
 * test counts and each file's time (environment, import and collection, setup, hooks and tests).
 * Only runs started by `npm test` write it (a `npx vitest run <file>` leaves the last full run's
 * figures alone); a command line's own `--reporter` flags (as `.ci/run` passes) replace it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';

/** Where the record goes, relative to the repository root. */
export const LAST_TEST_RUN = 'node_modules/.cache/cds/last-test-run.json';

/** What the file holds. */
export interface LastTestRun {
  startedAt: string;
  wallMs: number;
  reason: TestRunEndReason;
  tests: { total: number; passed: number; failed: number; skipped: number };
  /** Every test file of the run, relative to the root, with its time in milliseconds. */
  files: { file: string; ms: number; state: string }[];
}

export default class LastRunReporter implements Reporter {
  private root = process.cwd();
  private started = Date.now();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
    this.started = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    if (process.env.npm_lifecycle_event !== 'test') return;
    const tests = { total: 0, passed: 0, failed: 0, skipped: 0 };
    const files = modules.map((module) => {
      for (const test of module.children.allTests()) {
        tests.total += 1;
        const state = test.result().state;
        if (state === 'passed') tests.passed += 1;
        else if (state === 'failed') tests.failed += 1;
        else tests.skipped += 1;
      }
      const d = module.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      return { file: relative(this.root, module.moduleId), ms: Math.round(ms), state: module.state() };
    });
    const record: LastTestRun = {
      startedAt: new Date(this.started).toISOString(),
      wallMs: Date.now() - this.started,
      reason,
      tests,
      files,
    };
    const file = join(this.root, LAST_TEST_RUN);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(record)}\n`);
    } catch (error) {
      process.stderr.write(`last-run-reporter: could not write ${file}: ${String(error)}\n`);
    }
  }
}
