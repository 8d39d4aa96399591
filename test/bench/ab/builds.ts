import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildBundle } from '../infra/planhub-entry.ts';
import { REPO_ROOT } from '../infra/processes.ts';

/** Where the side-by-side comparison keeps its bundles: inside server/, so their npm dependencies resolve. */
const AB_DIR = 'server/.bench/ab';
/** The workspace packages whose node_modules a checkout of another revision borrows from this one. */
const PACKAGES = ['.', 'server', 'shared', 'client-sdk', 'test'];

/** The production bundle of the working tree as it is now; answers the path of its main.js. */
export const buildWorkingTree = (name: string): string => {
  const out = `${AB_DIR}/${name}/dist`;
  buildBundle(REPO_ROOT, out);
  return `${out}/main.js`;
};

/**
 * The production bundle of `rev` (anything `git rev-parse` takes), built in a temporary worktree that borrows this
 * checkout's node_modules, then copied beside the working tree's. Its npm dependencies are this checkout's: a revision
 * that needs other versions is not compared faithfully.
 */
export const buildRevision = (rev: string, name: string): { main: string; commit: string } => {
  // git's own complaint goes into the error, not onto the terminal of whoever called (a test, the bench's user).
  const parsed = spawnSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (parsed.status !== 0)
    throw new Error(`git does not know the revision "${rev}" (git rev-parse: ${parsed.stderr.trim() || parsed.error})`);
  const commit = parsed.stdout.trim();
  const checkout = join(mkdtempSync(join(tmpdir(), 'planhub-ab-')), 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', '--quiet', checkout, commit], { cwd: REPO_ROOT });
  try {
    for (const pkg of PACKAGES) {
      const modules = join(REPO_ROOT, pkg, 'node_modules');
      if (existsSync(modules) && existsSync(join(checkout, pkg)))
        symlinkSync(modules, join(checkout, pkg, 'node_modules'));
    }
    const staged = 'server/.bench/ab-staged';
    buildBundle(checkout, staged);
    const out = join(REPO_ROOT, AB_DIR, name, 'dist');
    rmSync(out, { recursive: true, force: true });
    // Copied, not renamed: the temporary directory may be on another file system.
    cpSync(join(checkout, staged), out, { recursive: true });
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', checkout], { cwd: REPO_ROOT });
    rmSync(dirname(checkout), { recursive: true, force: true });
  }
  return { main: `${AB_DIR}/${name}/dist/main.js`, commit };
};
