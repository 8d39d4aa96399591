import { defineConfig } from 'vitest/config';
import { STRESS } from './test/helpers/stress.ts';

// Workspace packages resolve to their TypeScript source (the `planhub-source` export condition, named so no npm package shares it), not to a built dist/.
const source = { conditions: ['planhub-source', 'module', 'node', 'development|production'] };

export default defineConfig({
  resolve: { conditions: ['planhub-source', 'module', 'browser', 'development|production'] },
  ssr: { resolve: source },
  test: {
    include: [
      'shared/test/**/*.test.ts',
      'server/test/**/*.test.ts',
      'client-sdk/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    globalSetup: ['test/setup/redis-global-setup.ts', 'test/setup/server-bundle-setup.ts'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    // Race rounds scale with PLANHUB_STRESS, so a test's time limit scales with them.
    testTimeout: 30_000 * STRESS,
    // expect.poll's own default patience is 1 s, too short for a loaded 2-core CI machine (test/helpers/eventually.ts).
    expect: { poll: { timeout: 15_000, interval: 20 } },
    hookTimeout: 60_000,
    // Multi-process and browser suites compete for two cores; a little less parallelism keeps them honest.
    maxWorkers: 2,
    // Each worker imports the server's module graph once, not once per file: importing it took 146 s of a 309 s run
    // with isolation and 9.5 s without (the suite fell to 199 s). Tests share no module state they rely on: each starts
    // its own servers and stores, and process-wide caches (parsed JSON, step-id hints) are content-keyed guesses.
    isolate: false,
  },
});
