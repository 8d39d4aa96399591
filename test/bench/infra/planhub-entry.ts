import type { ServerBuild } from '../config.ts';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './processes.ts';

/** Where the bench's own copy of the production bundle goes: inside server/, so its npm dependencies resolve. */
const BUNDLE_DIR = 'server/.bench/dist';

let built = false;

/**
 * The entry point of every PlanHub node the bench starts. By default the production bundle (what the image and
 * `pnpm start:prod` run under plain node), built once per run from the current sources; `source` runs the
 * TypeScript through tsx instead, as `pnpm start` does, whose per-module transform costs CPU on every call.
 */
export const planhubEntry = (server: ServerBuild): string => {
  if (server === 'source') return 'server/src/main.ts';
  if (!built) {
    const build = spawnSync(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', BUNDLE_DIR], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    if (build.status !== 0)
      throw new Error(`Building the server bundle for the bench failed:\n${build.stderr || build.stdout}`);
    built = true;
  }
  return `${BUNDLE_DIR}/main.js`;
};
