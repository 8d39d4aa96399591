#!/usr/bin/env node
// `strip` (prepack) puts a consumer's package.json in place of the workspace's; `restore` (postpack) puts the
// workspace's back. npm pack and pnpm pack both tar the package.json on disk after prepack has run, and npm ignores
// publishConfig overrides of exports, so a rewrite is the one fix both honour. The workspace's manifest maps the
// planhub-source condition to src/, which is not shipped (a consumer's `--conditions=planhub-source` would resolve to a
// missing file), and its devDependencies hold workspace: specifiers, which mean nothing outside this repository.
// A pack that dies between the two leaves the stripped manifest and package.json.prepack behind (git status shows
// both, and `pnpm install --frozen-lockfile` fails meanwhile): run `restore`, or restore package.json with git.
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';

const manifest = new URL('../package.json', import.meta.url);
const kept = new URL('../package.json.prepack', import.meta.url);
const staged = new URL('../package.json.packing', import.meta.url);
const SOURCE_CONDITION = 'planhub-source';

const hasSourceCondition = (exports) =>
  typeof exports === 'object' &&
  exports !== null &&
  Object.entries(exports).some(([key, value]) => key === SOURCE_CONDITION || hasSourceCondition(value));

/**
 * The workspace's manifest, as opposed to one `strip` wrote. Only this tells which file is the real one: a backup
 * may be older than package.json (restored with git and edited since), so its mere presence proves nothing.
 */
const isWorkspaceManifest = (json) => json.scripts?.prepack !== undefined || hasSourceCondition(json.exports);

const read = async (url) => JSON.parse(await readFile(url, 'utf8'));

const withoutSourceCondition = (exports) => {
  if (typeof exports !== 'object' || exports === null) return exports;
  return Object.fromEntries(
    Object.entries(exports)
      .filter(([key]) => key !== SOURCE_CONDITION)
      .map(([key, value]) => [key, withoutSourceCondition(value)]),
  );
};

/** The manifest a consumer installs: no build scripts, no devDependencies, no condition that points into src/. */
const publishedManifest = (workspaceManifest) => {
  const { scripts: _scripts, devDependencies: _devDependencies, ...published } = workspaceManifest;
  if (published.exports !== undefined) published.exports = withoutSourceCondition(published.exports);
  // A workspace package the SDK needs at run time must be bundled by tsdown, not installed: it is not published.
  if (JSON.stringify(published).includes('workspace:')) throw new Error('a dependency uses a workspace: specifier');
  return published;
};

/** Renamed into place so a process reading the file meanwhile sees one version or the other, never half of one. */
const replace = async (url, text) => {
  await writeFile(staged, text);
  await rename(staged, url);
};

const LOST = 'package.json is a stripped manifest and no workspace manifest is kept: restore package.json with git';

const strip = async () => {
  const text = await readFile(manifest, 'utf8');
  const current = JSON.parse(text);
  if (isWorkspaceManifest(current)) {
    const published = publishedManifest(current);
    await replace(kept, text);
    await replace(manifest, `${JSON.stringify(published, null, 2)}\n`);
    return;
  }
  // A pack died before postpack and nothing restored package.json since: the backup is the one real manifest left.
  if (!existsSync(kept) || !isWorkspaceManifest(await read(kept))) throw new Error(LOST);
  await replace(manifest, `${JSON.stringify(publishedManifest(await read(kept)), null, 2)}\n`);
};

const restore = async () => {
  if (isWorkspaceManifest(await read(manifest))) {
    // A second restore, or package.json restored with git (and maybe edited since): the backup is stale.
    await rm(kept, { force: true });
    return;
  }
  if (!existsSync(kept) || !isWorkspaceManifest(await read(kept))) throw new Error(LOST);
  await rename(kept, manifest);
};

const command = process.argv[2];
if (command === 'strip') await strip();
else if (command === 'restore') await restore();
else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
