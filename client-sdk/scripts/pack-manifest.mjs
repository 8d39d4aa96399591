#!/usr/bin/env node
// `strip` (prepack) puts a consumer's package.json in place of the workspace's; `restore` (postpack) puts the
// workspace's back. npm pack and pnpm pack both tar the package.json on disk after prepack has run, and npm ignores
// publishConfig overrides of exports, so a rewrite is the one fix both honour. The workspace's manifest maps the
// planhub-source condition to src/, which is not shipped (a consumer's `--conditions=planhub-source` would resolve to a
// missing file), and its devDependencies hold workspace: specifiers, which mean nothing outside this repository.
// A pack that fails between the two leaves the stripped manifest and package.json.prepack behind: run `restore`.
import { existsSync } from 'node:fs';
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises';

const manifest = new URL('../package.json', import.meta.url);
const kept = new URL('../package.json.prepack', import.meta.url);
const staged = new URL('../package.json.packing', import.meta.url);
const SOURCE_CONDITION = 'planhub-source';

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

const strip = async () => {
  // After a pack that died before postpack, package.json is already stripped and the kept copy is the real one.
  const original = existsSync(kept) ? kept : manifest;
  const published = publishedManifest(JSON.parse(await readFile(original, 'utf8')));
  if (original === manifest) await copyFile(manifest, kept);
  // Renamed into place so a process reading package.json meanwhile sees one manifest or the other, never half of one.
  await writeFile(staged, `${JSON.stringify(published, null, 2)}\n`);
  await rename(staged, manifest);
};

const restore = async () => {
  if (existsSync(kept)) await rename(kept, manifest);
};

const command = process.argv[2];
if (command === 'strip') await strip();
else if (command === 'restore') await restore();
else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exitCode = 2;
}
