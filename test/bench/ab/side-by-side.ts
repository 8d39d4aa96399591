import { planhubEnv } from '../infra/cluster.ts';
import { cpuMeter } from '../infra/cpu.ts';
import { faninLimits } from '../infra/fanin-node.ts';
import { startNodeServer, type NodeServer } from '../infra/processes.ts';
import type { BenchRedis } from '../infra/redis.ts';
import { compareWindows, type Comparison, type WindowSample } from './compare.ts';
import { FANIN_FLOWS, openLoad, type Load, type LoadOptions } from './workloads.ts';

export interface SideBySideOptions extends LoadOptions {
  /** Pairs of windows, each build loaded in turn (the order alternates from one pair to the next). */
  windows: number;
  windowMs: number;
  /** Unmeasured load on each build first (JIT warm-up). */
  warmupMs: number;
  /** Options for node itself, per side (both empty: each build as production starts it). */
  nodeArgs?: { base: readonly string[]; next: readonly string[] };
}

/**
 * Comparisons made so far by this process: each one's nodes use key prefixes of their own, so a round on Redis never
 * finds the agents of an earlier round with their plans still open (the step load leaves them open).
 */
let comparisons = 0;

/**
 * The bench's node environment, with the call limits out of the way (they are not what is compared), and for the
 * fan-in load the fan-in node's limits (plans of one step per flow, one waiter per step).
 */
const nodeEnv = (redis: BenchRedis | undefined, prefix: string, options: LoadOptions): NodeJS.ProcessEnv => ({
  ...planhubEnv(redis?.url ?? '', prefix),
  ...(options.workload === 'fanin' ? faninLimits(options.flows ?? FANIN_FLOWS) : {}),
  PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
});

const runWindow = async (
  node: NodeServer,
  redis: BenchRedis | undefined,
  ops: ReadonlyArray<() => Promise<void>>,
  ms: number,
): Promise<WindowSample> => {
  const nodeMeter = cpuMeter([node.child.pid as number]);
  const redisMeter = cpuMeter(redis ? [redis.pid] : []);
  const nodeCpu = nodeMeter() ?? 0;
  const redisCpu = redisMeter() ?? 0;
  const start = performance.now();
  const end = start + ms;
  let done = 0;
  await Promise.all(
    ops.map(async (op) => {
      while (performance.now() < end) {
        await op();
        done += 1;
      }
    }),
  );
  const elapsed = performance.now() - start;
  if (done === 0) throw new Error(`${node.name} completed nothing in ${ms} ms`);
  return {
    rate: (done * 1000) / elapsed,
    nodeUs: (((nodeMeter() ?? nodeCpu) - nodeCpu) * 1000) / done,
    // An empty meter (the memory store) reads 0.
    redisUs: (((redisMeter() ?? redisCpu) - redisCpu) * 1000) / done,
  };
};

/**
 * Two builds as two nodes at once (on the same Redis, each under its own key prefix, or each on its own memory store),
 * loaded in turn in short windows: the machine's speed drifts by up to 2× within minutes, far more than most changes
 * move, but little within one pair of windows, so each pair's ratio compares like with like.
 */
export const sideBySide = async (
  builds: { base: string; next: string },
  redis: BenchRedis | undefined,
  options: SideBySideOptions,
): Promise<Comparison> => {
  comparisons += 1;
  const [base, next] = await Promise.all([
    startNodeServer('ab-base', builds.base, nodeEnv(redis, `ab-base-${comparisons}`, options), options.nodeArgs?.base),
    startNodeServer('ab-next', builds.next, nodeEnv(redis, `ab-next-${comparisons}`, options), options.nodeArgs?.next),
  ]);
  const loads: Load[] = [];
  try {
    const sides = [
      { node: base, load: await openLoad(base.url, options), samples: [] as WindowSample[] },
      { node: next, load: await openLoad(next.url, options), samples: [] as WindowSample[] },
    ] as const;
    for (const side of sides) loads.push(side.load);
    for (const side of sides) await runWindow(side.node, redis, side.load.ops, options.warmupMs);
    for (let i = 0; i < options.windows; i++) {
      const order = i % 2 === 0 ? sides : ([sides[1], sides[0]] as const);
      for (const side of order) side.samples.push(await runWindow(side.node, redis, side.load.ops, options.windowMs));
    }
    return compareWindows(sides[0].samples, sides[1].samples);
  } finally {
    for (const load of loads) load.close();
    await Promise.all([base.stop(), next.stop()]);
  }
};
