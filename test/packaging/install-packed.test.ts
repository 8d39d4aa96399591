import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const fixtures = new URL('./consumer/', import.meta.url).pathname;
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' } });

/**
 * The SDK as a stranger gets it: built (npm pack runs its prepack build), packed, installed from the tarball into an
 * empty npm project, then used with plain `node` and type-checked by a consumer's own `tsc`.
 */
describe('the packed SDK in a fresh npm project', () => {
  const manifestPath = join(root, 'client-sdk', 'package.json');
  let project: string;
  let installed: string;
  let workspaceManifest: { before: string; after: string };
  let h: Harness;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'planhub-consumer-'));
    installed = join(project, 'node_modules', '@planhub', 'client-sdk');
    const before = await readFile(manifestPath, 'utf8');
    await npm(['pack', '--pack-destination', project], join(root, 'client-sdk'));
    workspaceManifest = { before, after: await readFile(manifestPath, 'utf8') };
    const tarball = (await readdir(project)).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npm(
      ['install', '--prefer-offline', '--no-audit', `./${tarball}`, 'typescript@~5.9.3', '@types/node@^20.19.0'],
      project,
    );
    for (const file of ['agent.mjs', 'consumer.ts']) await copyFile(join(fixtures, file), join(project, file));
    await copyFile(join(fixtures, 'tsconfig.consumer.json'), join(project, 'tsconfig.json'));
    h = await startHarness('memory', { approvalPolicy: 'auto' });
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('ships built JavaScript and declarations only, and no TypeScript runner', async () => {
    const files = await readdir(join(installed, 'dist'));
    expect(files).toContain('index.js');
    expect(files).toContain('index.d.ts');
    expect(files).toContain('cli.js');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const modules = await readdir(join(project, 'node_modules'));
    expect(modules).not.toContain('tsx');
    expect(modules).not.toContain('esbuild');
    expect(await readdir(join(project, 'node_modules', '@planhub'))).toEqual(['client-sdk']);
  });

  it("ships a package.json with no source condition and no workspace: specifier, and leaves the checkout's as it was", async () => {
    const packed = await readFile(join(installed, 'package.json'), 'utf8');
    expect(packed).not.toContain('planhub-source');
    expect(packed).not.toContain('workspace:');
    expect(workspaceManifest.after).toBe(workspaceManifest.before);
    expect(workspaceManifest.before).toContain('planhub-source');
  });

  it('imports the package when the consumer runs with --conditions=planhub-source', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--conditions=planhub-source',
        '--input-type=module',
        '-e',
        "console.log(typeof (await import('@planhub/client-sdk')).connect)",
      ],
      { cwd: project },
    );
    expect(stdout.trim()).toBe('function');
  });

  it('runs a parent and subagent fan-in with plain node', async () => {
    const { stdout } = await run(process.execPath, ['agent.mjs'], {
      cwd: project,
      env: { ...process.env, PLANHUB_URL: h.url },
    });
    const report = JSON.parse(stdout) as { event: Record<string, unknown>; received: unknown };
    expect(report.event).toMatchObject({
      event_type: 'step_unblocked',
      source_agent: 'parent',
      payload: { unblocked_by: { agent_id: 'subagent', step_id: 'step_1' } },
    });
    expect(report.received).toEqual({ 'subagent:step_1': { facts: ['packaged', 'plain node'] } });
  });

  it('runs the installed planhub command with plain node', async () => {
    const { stdout } = await run(join(project, 'node_modules', '.bin', 'planhub'), ['--version'], { cwd: project });
    expect(stdout.trim()).toBe((JSON.parse(workspaceManifest.before) as { version: string }).version);
  });

  it('links planhub to the committed launcher, which runs the built CLI under npx', async () => {
    const { bin } = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { bin: unknown };
    expect(bin).toEqual({ planhub: './bin/planhub.mjs' });
    const { stdout } = await run('npx', ['--no-install', 'planhub', '--help'], { cwd: project });
    expect(stdout).toContain('Usage: planhub');
    expect(stdout).toContain('mcp');
  });

  it("type-checks a consumer with tsc --strict under NodeNext, the package's own declarations included", async () => {
    const tsc = join(project, 'node_modules', '.bin', 'tsc');
    const result = await run(tsc, ['-p', 'tsconfig.json'], { cwd: project }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
    );
    expect(result.out).toBe('');
    expect(result.code).toBe(0);
  }, 180_000);
});
