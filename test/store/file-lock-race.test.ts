import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { rounds } from '../helpers/stress.ts';
import { tempStorageDir } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTENDERS = 6;
const ROUNDS = rounds(4);

/** Starts `CONTENDERS` processes that all try the directory's lock at the same instant; resolves with what each got. */
const contend = async (dir: string) => {
  const startAt = Date.now() + 2000;
  const children = Array.from({ length: CONTENDERS }, () =>
    spawn(process.execPath, ['--import', 'tsx', 'test/store/support/lock-contender.ts', dir, String(startAt)], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  try {
    return await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((resolve, reject) => {
            let out = '';
            child.stdout.on('data', (chunk: Buffer) => {
              out += chunk.toString();
              if (out.includes('\n')) resolve(out.trim());
            });
            child.on('exit', (code) => reject(new Error(`a contender exited (${code}) before it answered: ${out}`)));
          }),
      ),
    );
  } finally {
    // Every contender holds what it took until all have answered: a lock freed early could be taken again lawfully.
    for (const child of children) child.stdin.end();
  }
};

/** Nodes started together (a supervisor starting two at once) on one directory: exactly one may serve it. */
describe('the file store lock between processes that start at once', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it(`lets exactly one of ${CONTENDERS} in, on a fresh directory and over a dead node's lock`, async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    for (let round = 0; round < ROUNDS; round++) {
      const dir = tempStorageDir();
      dirs.push(dir);
      if (round % 2 === 1)
        writeFileSync(join(dir, 'planhub.lock'), JSON.stringify({ host: hostname(), pid: dead, started: 'earlier' }));
      const outcomes = await contend(dir);
      expect(
        outcomes.filter((o) => o === 'took'),
        `round ${round}: ${outcomes.join(' | ')}`,
      ).toHaveLength(1);
      for (const refused of outcomes.filter((o) => o !== 'took'))
        expect(refused).toMatch(
          /^refused: storage_path .* (is in use by another|was just taken by another) PlanHub node/,
        );
    }
  }, 120_000);
});
