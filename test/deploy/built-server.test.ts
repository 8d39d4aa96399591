import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { runMain, type MainRun } from '../ops/run-main.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIST = `${ROOT}server/dist/`;
const run = promisify(execFile);

describe('the built server (what the image runs)', () => {
  const prefix = uniquePrefix();
  let node: MainRun;
  let url: string;

  beforeAll(async () => {
    await run(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts'], { cwd: `${ROOT}` });
    node = runMain({ REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix }, [
      '--import',
      `${ROOT}test/deploy/forbid-dev-deps.mjs`,
      `${DIST}main.js`,
    ]);
    ({ url } = JSON.parse(await node.line(/PlanHub listening/)) as { url: string });
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
    await deletePrefix(inject('redisUrl'), prefix);
  });

  it('runs under plain node with no tsx, esbuild or workspace sources, and serves calls on Redis', async () => {
    const agent = await connect({ url, workspace: 'built', agentId: 'main' });
    try {
      const plan = await agent.createPlan({ title: 'Ship the image', steps: ['Build', 'Run'] });
      expect(plan.steps).toHaveLength(2);
    } finally {
      agent.close();
    }
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect(node.stderr.join('\n')).not.toMatch(/development-only package/);
  });

  it('runs the file store, whose native engine ships prebuilt in its npm package, under the bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-built-file-'));
    const durable = runMain({ PLANHUB_STORE: 'file', PLANHUB_STORAGE_PATH: dir }, [
      '--import',
      `${ROOT}test/deploy/forbid-dev-deps.mjs`,
      `${DIST}main.js`,
    ]);
    try {
      const started = JSON.parse(await durable.line(/PlanHub listening/)) as { url: string; store: string };
      expect(started.store).toBe('file');
      const agent = await connect({ url: started.url, workspace: 'built', agentId: 'main' });
      try {
        expect((await agent.createPlan({ title: 'Durable', steps: ['One'] })).steps).toHaveLength(1);
      } finally {
        agent.close();
      }
    } finally {
      await durable.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves the dashboard prebuilt at build time, byte for byte', async () => {
    const page = await fetch(`${url}/dashboard`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(readFileSync(`${DIST}dashboard-prebuilt/index.html`, 'utf8'));
    const js = await fetch(`${url}/dashboard/app.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await js.text()).toBe(readFileSync(`${DIST}dashboard-prebuilt/app.js`, 'utf8'));
  });

  it('builds into a directory given inside server/ and refuses one outside it, which it would empty', async () => {
    // The bench builds its own copy (server/.bench/dist); the build empties its output directory first.
    const outside = mkdtempSync(join(tmpdir(), 'planhub-build-out-'));
    const kept = join(outside, 'kept.txt');
    writeFileSync(kept, 'not the build');
    try {
      await expect(
        run(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', outside], { cwd: ROOT }),
      ).rejects.toThrow(/must be inside/);
      expect(readFileSync(kept, 'utf8')).toBe('not the build');
      await expect(
        run(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', 'server'], { cwd: ROOT }),
      ).rejects.toThrow(/must be inside/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    const inside = 'server/.bench/build-test';
    try {
      await run(process.execPath, ['--import', 'tsx', 'server/scripts/build.ts', inside], { cwd: ROOT });
      expect(readFileSync(`${ROOT}${inside}/main.js`, 'utf8')).toBe(readFileSync(`${DIST}main.js`, 'utf8'));
      expect(readFileSync(`${ROOT}${inside}/commit.lua`, 'utf8')).toContain('cjson.decode');
    } finally {
      rmSync(`${ROOT}${inside}`, { recursive: true, force: true });
    }
  }, 120_000);
});
