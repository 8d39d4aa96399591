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
    hookTimeout: 60_000,
    // Multi-process and browser suites compete for two cores; a little less parallelism keeps them honest.
    maxWorkers: 2,
  },
});
