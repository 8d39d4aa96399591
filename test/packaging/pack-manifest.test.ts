import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const run = promisify(execFile);
const sdk = new URL('../../client-sdk/', import.meta.url).pathname;

/**
 * The prepack/postpack script on a copy of the SDK's manifest: the script finds package.json next to its own folder,
 * so a copy of both in a temporary directory never touches the checkout.
 */
describe('client-sdk/scripts/pack-manifest.mjs', () => {
  let dir: string;
  let workspace: { version: string; scripts: Record<string, string> };
  const manifest = () => join(dir, 'package.json');
  const backup = () => join(dir, 'package.json.prepack');
  const pack = (command: 'strip' | 'restore') =>
    run(process.execPath, [join(dir, 'scripts', 'pack-manifest.mjs'), command]);
  const readManifest = async () => JSON.parse(await readFile(manifest(), 'utf8')) as Record<string, unknown>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'planhub-pack-manifest-'));
    await mkdir(join(dir, 'scripts'));
    await copyFile(join(sdk, 'scripts', 'pack-manifest.mjs'), join(dir, 'scripts', 'pack-manifest.mjs'));
    // The checkout's own manifest may be the stripped one while another test packs the SDK; the backup is then the real one.
    const source = existsSync(join(sdk, 'package.json.prepack')) ? 'package.json.prepack' : 'package.json';
    await copyFile(join(sdk, source), manifest());
    workspace = JSON.parse(await readFile(manifest(), 'utf8')) as typeof workspace;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('strips the scripts, devDependencies and source condition for the pack, and restores the manifest after it', async () => {
    const before = await readFile(manifest(), 'utf8');
    await pack('strip');
    const packed = await readManifest();
    expect(packed.scripts).toBeUndefined();
    expect(packed.devDependencies).toBeUndefined();
    expect(JSON.stringify(packed)).not.toContain('planhub-source');
    await pack('restore');
    expect(await readFile(manifest(), 'utf8')).toBe(before);
    expect(existsSync(backup())).toBe(false);
  });

  it('packs an edit made after a killed pack was undone with git, and keeps the edit after the pack', async () => {
    const original = await readFile(manifest(), 'utf8');
    await pack('strip');
    // The pack is killed here; the operator runs `git restore package.json` and bumps the version.
    await writeFile(manifest(), original);
    const edited = `${JSON.stringify({ ...workspace, version: '9.9.9' }, null, 2)}\n`;
    await writeFile(manifest(), edited);
    await pack('strip');
    expect((await readManifest()).version).toBe('9.9.9');
    await pack('restore');
    expect(await readFile(manifest(), 'utf8')).toBe(edited);
    expect(existsSync(backup())).toBe(false);
  });

  it('leaves an edited manifest alone and drops the stale backup when restore runs without a pack', async () => {
    await pack('strip');
    const edited = `${JSON.stringify({ ...workspace, version: '9.9.9' }, null, 2)}\n`;
    await writeFile(manifest(), edited);
    await pack('restore');
    expect(await readFile(manifest(), 'utf8')).toBe(edited);
    expect(existsSync(backup())).toBe(false);
  });

  it('treats a second restore as a no-op', async () => {
    const before = await readFile(manifest(), 'utf8');
    await pack('strip');
    await pack('restore');
    await pack('restore');
    expect(await readFile(manifest(), 'utf8')).toBe(before);
    expect(existsSync(backup())).toBe(false);
  });

  it('packs from the backup when a killed pack left the stripped manifest in place', async () => {
    const before = await readFile(manifest(), 'utf8');
    await pack('strip');
    await pack('strip');
    expect((await readManifest()).scripts).toBeUndefined();
    await pack('restore');
    expect(await readFile(manifest(), 'utf8')).toBe(before);
  });

  it('refuses to pack or restore when the stripped manifest is all that is left', async () => {
    await pack('strip');
    await rm(backup());
    await expect(pack('strip')).rejects.toThrow(/restore package\.json with git/);
    await expect(pack('restore')).rejects.toThrow(/restore package\.json with git/);
  });
});

/**
 * A pack that died between prepack and postpack leaves a manifest that `pnpm install --frozen-lockfile` refuses and
 * that resolves the SDK without its source; the suite names the fix rather than letting an install fail later.
 */
describe("the checkout's SDK manifest", () => {
  it('is the workspace manifest with the planhub-source condition, and no pack backup is left beside it', async () => {
    // A pack in another test file (install-packed) holds the stripped manifest for as long as its build takes.
    await vi.waitFor(
      async () => {
        expect(
          existsSync(join(sdk, 'package.json.prepack')),
          'run: node client-sdk/scripts/pack-manifest.mjs restore',
        ).toBe(false);
        expect(await readFile(join(sdk, 'package.json'), 'utf8')).toContain('"planhub-source"');
      },
      { timeout: 120_000, interval: 500 },
    );
  }, 130_000);
});
