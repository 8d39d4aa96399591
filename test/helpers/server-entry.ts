import { inject } from 'vitest';

/**
 * What `node` runs to start a server process: the production bundle this run built (test/setup/server-bundle-setup.ts),
 * as the image and `pnpm start:prod` run it. `pnpm start`'s way (tsx over the sources) is covered by the tests that
 * spawn server/src/main.ts themselves (test/security/open-mode.test.ts, test/ops/operator-runtime.test.ts).
 */
export const serverEntry = (): string[] => [inject('serverBundle')];
