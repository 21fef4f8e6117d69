import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Files that run one at a time, in one worker process of their own, after all the others (test/README.md
 * says why): they hold a process or a request to a time limit, measure time against time, or
 * drive Chromium.
 */
const SERIAL = [
  'test/bus/bus.test.ts',
  'test/client/browser.test.ts',
  'test/client/lobby-browser.test.ts',
  'test/console/**/*.test.ts',
  'test/e2e/scale-out-cluster.test.ts',
  'test/e2e/scale-out-outages.test.ts',
  'test/e2e/scale-out-revocation.test.ts',
  'test/e2e/workers.test.ts',
  'test/http/admin-auth.test.ts',
  'test/http/auth-timing.test.ts',
  'test/rules/rules-two-instances.test.ts',
  'test/ws/realtime-rules.test.ts',
];

/**
 * The package's own subpaths, as the examples (examples/functions) import them like an operator's
 * project does: resolved to the sources here, so `npm test` needs no build first.
 */
const resolve = {
  alias: [
    { find: /^client-data-service\/functions$/, replacement: join(import.meta.dirname, 'src/functions/index.ts') },
    {
      find: /^client-data-service\/functions\/testing$/,
      replacement: join(import.meta.dirname, 'src/functions/testing.ts'),
    },
  ],
};

/** What both groups share (projects do not inherit the root's test options). */
const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    // Once per run, before either group (the root project's global setup).
    globalSetup: ['test/support/cli-bundle.ts'],
    // The default console output, and the last `npm test` run's timing for `npm run health`
    // (test/support/last-run-reporter.ts). Reporters named on the command line replace both.
    reporters: ['default', './test/support/last-run-reporter.ts'],
    projects: [
      {
        resolve,
        // Two files at a time, each on its own PostgreSQL schemas, Redis prefixes, data directories
        // and ports. The two worker processes live for the whole group (isolate: false): a file
        // imports the service's modules once per worker instead of once per file.
        test: {
          ...common,
          name: 'parallel',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: SERIAL,
          maxWorkers: 2,
          isolate: false,
        },
      },
      {
        // One worker for the whole group, one file at a time, after the parallel group. The worker
        // lives for the group (isolate: false): a fresh process per file imported the service's
        // modules again for each (about 5 s a file on a busy machine, 70 s of the group).
        resolve,
        // Its own group order, after the parallel group's 0: vitest requires one for a non-isolated
        // project whose maxWorkers differs from another's.
        test: {
          ...common,
          name: 'serial',
          include: SERIAL,
          maxWorkers: 1,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
