import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'shared/test/**/*.test.ts',
      'server/test/**/*.test.ts',
      'client-sdk/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    globalSetup: ['test/setup/redis-global-setup.ts'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Multi-process and browser suites compete for two cores; a little less parallelism keeps them honest.
    maxWorkers: 2,
  },
});
