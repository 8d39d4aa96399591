import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain, type MainRun } from '../ops/run-main.ts';
import { tempStorageDir } from '../helpers/stores.ts';

// Starting real server processes (tsx) takes seconds each on a loaded machine.
const PROCESS_TEST_MS = 120_000;

/** One node per storage_path, between real processes (the lock's pid check), as an operator meets it. */
describe('two nodes on one file store directory', () => {
  const dir = tempStorageDir();
  const runs: MainRun[] = [];
  afterAll(async () => {
    await Promise.all(runs.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'refuses the second node with a config error naming the directory and the node that holds it',
    async () => {
      const env = { PLANHUB_STORE: 'file', PLANHUB_STORAGE_PATH: dir };
      const first = runMain(env);
      runs.push(first);
      await first.line(/PlanHub listening/);
      const second = runMain(env);
      runs.push(second);
      expect(await second.exited).not.toBe(0);
      expect(second.stderr.join('\n')).toContain(
        `PLANHUB_STORAGE_PATH ${dir} is in use by another PlanHub node (pid ${first.child.pid}`,
      );
    },
    PROCESS_TEST_MS,
  );
});
