import { cpSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileStore } from '@planhub/server';
import { afterAll, describe, expect, it } from 'vitest';
import { refusedStart, runMain, type MainRun } from './run-main.ts';

const dir = mkdtempSync(join(tmpdir(), 'planhub-file-start-'));
const runs: MainRun[] = [];
afterAll(async () => {
  await Promise.all(runs.map((r) => r.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const aFile = join(dir, 'not-a-directory');
writeFileSync(aFile, 'x');

/** Exit 1 and one plain line, as every other operator mistake; no Node stack, no errno dump. */
const expectOneLine = (run: { code: number | null; stdout: string; stderr: string }, message: RegExp) => {
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^PlanHub cannot start: /);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at |\.ts:\d+|node:internal/);
};

describe('file store startup problems are one line naming the setting used', () => {
  it('refuses a PLANHUB_STORAGE_PATH that is a file', async () => {
    const run = await refusedStart({ PLANHUB_STORAGE_PATH: aFile });
    expectOneLine(run, new RegExp(`PLANHUB_STORAGE_PATH is ${aFile}, which is a file`));
    expect(run.stderr).not.toMatch(/storage_path/);
  });

  it('refuses a PLANHUB_STORAGE_PATH under a file (no directory can be created there)', async () => {
    const run = await refusedStart({ PLANHUB_STORAGE_PATH: join(aFile, 'sub') });
    expectOneLine(run, new RegExp(`PLANHUB_STORAGE_PATH is ${aFile}/sub, but ${aFile} is a file`));
    expect(run.stderr).not.toMatch(/ENOTDIR/);
  });

  it('names storage_path and the file when the path came from planhub.json', async () => {
    const config = join(dir, 'planhub.json');
    writeFileSync(config, JSON.stringify({ storage_type: 'file', storage_path: aFile }));
    expectOneLine(
      await refusedStart({ PLANHUB_CONFIG: config }),
      new RegExp(`storage_path in ${config} is ${aFile}, which is a file`),
    );
  });

  it('refuses a damaged database (a truncated copy, other content) in one line instead of dying on a signal', async () => {
    // A store that holds data, written and closed as a stopped node leaves it.
    const good = join(dir, 'good');
    const store = createFileStore({ path: good, eventRetention: 100 });
    const writes = Array.from({ length: 400 }, (_, i) => ({ key: `doc:${i}`, value: { n: i, pad: 'x'.repeat(200) } }));
    expect(await store.commit('ws', { reads: [], writes, events: [] })).toMatchObject({ ok: true });
    await store.close();
    const copy = (name: string, damage: (file: string) => void) => {
      const path = join(dir, name);
      cpSync(good, path, { recursive: true });
      damage(join(path, 'data', 'data.mdb'));
      return path;
    };
    // An interrupted backup: the node died on SIGBUS with nothing printed. Another file in its place: SIGSEGV.
    const truncated = copy('truncated', (file) => truncateSync(file, Math.floor(statSync(file).size / 2)));
    const replaced = copy('replaced', (file) => writeFileSync(file, '{"plans":[]}'));
    for (const path of [truncated, replaced]) {
      const run = await refusedStart({ PLANHUB_STORAGE_PATH: path });
      expectOneLine(run, new RegExp(`^PlanHub cannot start: PLANHUB_STORAGE_PATH ${path} holds a damaged database`));
      expect(run.stderr).toMatch(/Restore the directory from a backup copied while the node was stopped/);
    }
    // The undamaged store still starts, its data checked first.
    const fine = runMain({ PLANHUB_STORAGE_PATH: good });
    runs.push(fine);
    await fine.line(/PlanHub listening/);
  });

  it('refuses a second node on a storage directory another node holds', async () => {
    const storage = join(dir, 'store');
    const first = runMain({ PLANHUB_STORAGE_PATH: storage });
    runs.push(first);
    await first.line(/PlanHub listening/);
    const second = await refusedStart({ PLANHUB_STORAGE_PATH: storage });
    expectOneLine(second, new RegExp(`PLANHUB_STORAGE_PATH ${storage} is in use by another PlanHub node`));
    expect(second.stderr).not.toMatch(/storage_path/);
  });
});
