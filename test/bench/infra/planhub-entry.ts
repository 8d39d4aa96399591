import type { ServerBuild } from '../config.ts';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './processes.ts';

/** Where the bench's own copy of the production bundle goes: inside server/, so its npm dependencies resolve. */
const BUNDLE_DIR = 'server/.bench/dist';

let built = false;

/**
 * Builds the production bundle of the checkout at `checkout` into `outDir` (relative to it, inside its server/):
 * what `server/scripts/build.ts` makes for the image.
 */
export const buildBundle = (checkout: string, outDir: string): void => {
  const build = spawnSync(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', outDir], {
    cwd: checkout,
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(`Building the server bundle in ${checkout} failed:\n${build.stderr || build.stdout}`);
};

/**
 * The entry point of every PlanHub node the bench starts. By default the production bundle (what the image and
 * `pnpm start:prod` run under plain node), built once per run from the current sources; `source` runs the
 * TypeScript through tsx instead, as `pnpm start` does, whose per-module transform costs CPU on every call.
 */
export const planhubEntry = (server: ServerBuild): string => {
  if (server === 'source') return 'server/src/main.ts';
  if (!built) {
    buildBundle(REPO_ROOT, BUNDLE_DIR);
    built = true;
  }
  return `${BUNDLE_DIR}/main.js`;
};
