import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/cli-bundle.ts'],
    // The default console output, and the last `npm test` run's timing for `npm run health`
    // (test/support/last-run-reporter.ts). Reporters named on the command line replace both.
    reporters: ['default', './test/support/last-run-reporter.ts'],
  },
});
