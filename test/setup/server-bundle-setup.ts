import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server bundle built for this run (test/helpers/server-entry.ts): what server processes run. */
    serverBundle: string;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Inside server/, where the bundle's npm dependencies resolve from (server/scripts/build.ts requires it), and named
 * `dist`, which the linters skip.
 */
const OUT = join(ROOT, 'server/.test-build/dist');

/**
 * Builds the production bundle once per run, as the image and `pnpm start:prod` build it. Server processes the tests
 * spawn run it with plain node: starting one through tsx took about twice as long, and the suite starts some 150.
 */
export default function setup(project: TestProject) {
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', OUT], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new Error(`Building the server bundle for the tests failed:\n${built.stdout}\n${built.stderr}`);
  project.provide('serverBundle', join(OUT, 'main.js'));
}
