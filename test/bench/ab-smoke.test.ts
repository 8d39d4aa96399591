import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { buildRevision, buildWorkingTree } from './ab/builds.ts';
import { compareWindows, summarizeRounds } from './ab/compare.ts';
import { sideBySide } from './ab/side-by-side.ts';
import { FANIN_CHILDREN, openLoad } from './ab/workloads.ts';
import { REPO_ROOT, startNodeServer } from './infra/processes.ts';
import { cpuMeter } from './infra/cpu.ts';
import { startRedis, type BenchRedis } from './infra/redis.ts';

const sample = (nodeUs: number, rate = 1000) => ({ rate, nodeUs, redisUs: 0 });

describe('bench:ab comparison of windows', () => {
  it('takes the ratio within each pair, so drift between pairs cancels', () => {
    // The machine slows 2× from the first pair to the second; the next build is 10 % cheaper in both.
    const result = compareWindows([sample(100), sample(200)], [sample(90), sample(180)]);
    expect(result.cpuRatio).toEqual({ median: 0.9, min: 0.9, max: 0.9 });
    expect(result.lowerIn).toBe(2);
    expect(result.base.nodeUs).toBe(150);
    expect(result.next.nodeUs).toBe(135);
  });

  it('counts the pairs where the next build cost more, and compares only complete pairs', () => {
    const result = compareWindows([sample(100), sample(100), sample(100)], [sample(120), sample(80)]);
    expect(result.pairs).toBe(2);
    expect(result.lowerIn).toBe(1);
    expect(result.cpuRatio.min).toBeCloseTo(0.8);
    expect(result.cpuRatio.max).toBeCloseTo(1.2);
  });

  it('refuses to compare nothing', () => {
    expect(() => compareWindows([], [])).toThrow(/No windows/);
  });
});

describe('bench:ab rounds on fresh nodes', () => {
  const round = (ratio: number) => compareWindows([sample(100)], [sample(100 * ratio)]);

  it("summarises the rounds' median ratios, so one pair of processes' bias is one round among several", () => {
    // One round's processes favoured the base build, the other two the next one.
    const summary = summarizeRounds([round(1.06), round(0.9), round(0.92)]);
    expect(summary.perRound.map((r) => Number(r.toFixed(2)))).toEqual([1.06, 0.9, 0.92]);
    expect(summary.ratio.median).toBeCloseTo(0.92);
    expect(summary.ratio.min).toBeCloseTo(0.9);
    expect(summary.ratio.max).toBeCloseTo(1.06);
    expect(summary.lowerIn).toBe(2);
    expect(summary.rounds).toBe(3);
  });

  it('refuses to summarise no rounds', () => {
    expect(() => summarizeRounds([])).toThrow(/No rounds/);
  });
});

/** HEAD's bundle, built once for the tests that run it on both sides. */
let built: ReturnType<typeof buildRevision> | undefined;
const headBuild = () => (built ??= buildRevision('HEAD', 'smoke-head'));

/**
 * Both sides served operations, and each node's own CPU, read from /proc around its windows, was spent (a node that
 * served calls spent some); Redis CPU was read only when the sides ran on Redis. /proc counts in 10 ms ticks, so a
 * short window on a loaded machine may see Redis spend none: that it was read at all is checked over the whole
 * comparison instead (redisWorked).
 */
const expectBothServed = (result: Awaited<ReturnType<typeof sideBySide>>, { onRedis }: { onRedis: boolean }) => {
  for (const side of [result.base, result.next]) {
    expect(side.rate).toBeGreaterThan(0);
    expect(side.nodeUs).toBeGreaterThan(0);
    if (onRedis) expect(Number.isFinite(side.redisUs) && side.redisUs >= 0).toBe(true);
    else expect(side.redisUs).toBe(0);
  }
};

/** Runs `compare` and checks that the Redis it ran on spent CPU meanwhile, as the windows' meter reads it. */
const redisWorked = async <T>(redis: BenchRedis, compare: () => Promise<T>): Promise<T> => {
  const before = cpuMeter([redis.pid])();
  const result = await compare();
  const after = cpuMeter([redis.pid])();
  expect(before).toBeTypeOf('number');
  expect(after! - before!).toBeGreaterThan(0);
  return result;
};

describe('bench:ab on real builds', () => {
  it('builds a revision and the working tree, runs both side by side, and leaves no worktree behind', async () => {
    const base = buildRevision('HEAD', 'smoke-base');
    expect(base.commit).toMatch(/^[0-9a-f]{40}$/);
    const next = buildWorkingTree('smoke-next');
    const result = await sideBySide({ base: base.main, next }, undefined, {
      workload: 'step',
      agents: 4,
      steps: 10,
      windows: 2,
      windowMs: 500,
      warmupMs: 300,
    });
    expect(result.pairs).toBe(2);
    expectBothServed(result, { onRedis: false });
    expect(result.cpuRatio.median).toBeGreaterThan(0);
    expect(Number.isFinite(result.cpuRatio.median)).toBe(true);
    const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(worktrees.match(/^worktree /gm)).toHaveLength(1);
  }, 120_000);

  it('runs rounds of the step load on one Redis, each on keys of its own', async () => {
    const build = headBuild();
    const redis = await startRedis();
    try {
      // The step load leaves each agent's plan open: a second round on the same keys refused every createPlan.
      for (let round = 0; round < 2; round++) {
        const result = await redisWorked(redis, () =>
          sideBySide({ base: build.main, next: build.main }, redis, {
            workload: 'step',
            agents: 3,
            steps: 5,
            windows: 1,
            windowMs: 300,
            warmupMs: 200,
          }),
        );
        expectBothServed(result, { onRedis: true });
      }
    } finally {
      await redis.stop();
    }
  }, 120_000);

  it('runs the fan-in load on one Redis: subagents’ completions, node and Redis CPU per completion', async () => {
    const build = headBuild();
    const redis = await startRedis();
    try {
      const result = await redisWorked(redis, () =>
        sideBySide({ base: build.main, next: build.main }, redis, {
          workload: 'fanin',
          agents: 10,
          steps: 1,
          // 200 steps fit one createPlan; 2,000 completions outlast 300 ms of load on each side.
          flows: 200,
          windows: 1,
          windowMs: 200,
          warmupMs: 100,
        }),
      );
      expect(result.pairs).toBe(1);
      expectBothServed(result, { onRedis: true });
    } finally {
      await redis.stop();
    }
  }, 180_000);

  it('fails the fan-in load once its flows are used up, rather than counting calls that did nothing', async () => {
    const node = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' });
    const { url } = await node.listen();
    const load = await openLoad(url, { workload: 'fanin', agents: FANIN_CHILDREN, steps: 1, flows: 2 });
    try {
      // One lane per subagent, each completing its subagent's two steps.
      for (const op of load.ops) {
        await op();
        await op();
      }
      await expect(load.ops[0]?.()).rejects.toThrow(/ran out of its 2 flows: raise --flows/);
    } finally {
      load.close();
      await node.close();
    }
  }, 60_000);

  it('starts a side with node options of its own (--next-node-options), before the entry point', async () => {
    const server = await startNodeServer('smoke-options', 'test/bench/floors/echo-server.ts', { FLOOR_MODE: 'echo' }, [
      '--max-semi-space-size=16',
    ]);
    try {
      const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
      const option = argv.indexOf('--max-semi-space-size=16');
      expect(option).toBeGreaterThan(0);
      expect(option).toBeLessThan(argv.findIndex((a) => a.endsWith('echo-server.ts')));
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('names a revision git does not know', () => {
    expect(() => buildRevision('no-such-revision-anywhere', 'smoke-bad')).toThrow(
      /^git does not know the revision "no-such-revision-anywhere" \(git rev-parse: fatal: Needed a single revision\)$/,
    );
  });
});
