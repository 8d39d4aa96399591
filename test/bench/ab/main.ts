// pnpm bench:ab: two builds of the server side by side (docs/bench-ab.md).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startRedis } from '../infra/redis.ts';
import { buildRevision, buildWorkingTree } from './builds.ts';
import { sideBySide } from './side-by-side.ts';

const count = z.coerce.number().int().positive();
const OptionsSchema = z.object({
  base: z.string().min(1).default('HEAD'),
  next: z.string().min(1).optional(),
  workload: z.enum(['step', 'roll']).default('step'),
  store: z.enum(['memory', 'redis']).default('memory'),
  windows: count.default(10),
  'window-ms': count.default(1500),
  'warmup-ms': count.default(1500),
  agents: count.default(50),
  steps: count.max(200).default(50),
});

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: Object.fromEntries(Object.keys(OptionsSchema.shape).map((name) => [name, { type: 'string' as const }])),
  strict: true,
});
const parsed = OptionsSchema.safeParse(values);
if (!parsed.success) {
  console.error(`pnpm bench:ab: ${z.prettifyError(parsed.error)}`);
  process.exit(2);
}
const options = parsed.data;

const base = buildRevision(options.base, 'base');
const next =
  options.next === undefined
    ? { main: buildWorkingTree('next'), commit: 'working tree' }
    : buildRevision(options.next, 'next');
const redis = options.store === 'redis' ? await startRedis() : undefined;
try {
  const result = await sideBySide({ base: base.main, next: next.main }, redis, {
    workload: options.workload,
    agents: options.agents,
    steps: options.steps,
    windows: options.windows,
    windowMs: options['window-ms'],
    warmupMs: options['warmup-ms'],
  });
  const unit = options.workload === 'roll' ? 'roll' : 'call';
  const row = (name: string, figures: typeof result.base) =>
    `${name.padEnd(12)} ${figures.rate.toFixed(0).padStart(8)} ${unit}s/s  node ${figures.nodeUs.toFixed(0).padStart(6)} µs/${unit}` +
    (redis ? `  redis ${figures.redisUs.toFixed(0).padStart(6)} µs/${unit}` : '');
  console.log(
    [
      `${options.workload} on ${options.store}, ${options.agents} agents, ${options.steps}-step plans, ${result.pairs} pairs of ${options['window-ms']} ms windows (medians)`,
      row(`base ${base.commit.slice(0, 8)}`, result.base),
      row(`next ${next.commit === 'working tree' ? 'tree' : next.commit.slice(0, 8)}`, result.next),
      `node CPU per ${unit}, next ÷ base: ${result.cpuRatio.median.toFixed(3)} (range ${result.cpuRatio.min.toFixed(3)}–${result.cpuRatio.max.toFixed(3)}), lower in ${result.lowerIn} of ${result.pairs} pairs`,
    ].join('\n'),
  );
  console.log(JSON.stringify({ options, baseCommit: base.commit, nextCommit: next.commit, ...result }));
} finally {
  await redis?.stop();
}
process.exit(0);
