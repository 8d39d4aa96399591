// pnpm bench:ab: two builds of the server side by side (docs/bench-ab.md).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startRedis } from '../infra/redis.ts';
import { buildRevision, buildWorkingTree } from './builds.ts';
import { median } from '../stats/repetitions.ts';
import { summarizeRounds, type Comparison } from './compare.ts';
import { sideBySide } from './side-by-side.ts';
import { FANIN_CHILDREN, FANIN_FLOWS } from './workloads.ts';

const count = z.coerce.number().int().positive();
const OptionsSchema = z.object({
  base: z.string().min(1).default('HEAD'),
  next: z.string().min(1).optional(),
  workload: z.enum(['step', 'roll', 'fanin']).default('step'),
  store: z.enum(['memory', 'redis']).default('memory'),
  rounds: count.default(3),
  windows: count.default(8),
  'window-ms': count.default(1500),
  'warmup-ms': count.default(1500),
  agents: count.default(50),
  steps: count.max(200).default(50),
  /** Fan-in load: parent steps prepared per node and round (each subagent's plan has one step per flow). */
  flows: count.default(FANIN_FLOWS),
  /** Node options for one side, space-separated (e.g. "--max-semi-space-size=32"): a runtime setting compared alone. */
  'base-node-options': z.string().default(''),
  'next-node-options': z.string().default(''),
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
const nodeArgsOf = (text: string) => text.split(' ').filter((a) => a !== '');

const base = buildRevision(options.base, 'base');
const next =
  options.next === undefined
    ? { main: buildWorkingTree('next'), commit: 'working tree' }
    : buildRevision(options.next, 'next');
const redis = options.store === 'redis' ? await startRedis() : undefined;
try {
  const rounds: Comparison[] = [];
  const unit = { step: 'call', roll: 'roll', fanin: 'completion' }[options.workload];
  const ratioText = (r: { median: number; min: number; max: number }) =>
    `${r.median.toFixed(3)} (range ${r.min.toFixed(3)}–${r.max.toFixed(3)})`;
  for (let round = 1; round <= options.rounds; round++) {
    const result = await sideBySide({ base: base.main, next: next.main }, redis, {
      workload: options.workload,
      agents: options.agents,
      steps: options.steps,
      flows: options.flows,
      windows: options.windows,
      windowMs: options['window-ms'],
      warmupMs: options['warmup-ms'],
      nodeArgs: { base: nodeArgsOf(options['base-node-options']), next: nodeArgsOf(options['next-node-options']) },
    });
    rounds.push(result);
    console.log(
      `round ${round} of ${options.rounds}: node CPU per ${unit}, next ÷ base ${ratioText(result.cpuRatio)}, ` +
        `lower in ${result.lowerIn} of ${result.pairs} pairs`,
    );
  }
  const summary = summarizeRounds(rounds);
  const side = (pick: (r: Comparison) => Comparison['base']) => ({
    rate: median(rounds.map((r) => pick(r).rate)),
    nodeUs: median(rounds.map((r) => pick(r).nodeUs)),
    redisUs: median(rounds.map((r) => pick(r).redisUs)),
  });
  const figures = { base: side((r) => r.base), next: side((r) => r.next) };
  const row = (name: string, f: Comparison['base']) =>
    `${name.padEnd(12)} ${f.rate.toFixed(0).padStart(8)} ${unit}s/s  node ${f.nodeUs.toFixed(0).padStart(6)} µs/${unit}` +
    (redis ? `  redis ${f.redisUs.toFixed(0).padStart(6)} µs/${unit}` : '');
  console.log(
    [
      `${options.workload} on ${options.store}, ${options.agents} ${options.workload === 'fanin' ? `in flight, ${options.flows} flows × ${FANIN_CHILDREN} children` : `agents, ${options.steps}-step plans`}, ` +
        `${options.rounds} rounds of ${options.windows} pairs of ${options['window-ms']} ms windows (medians of rounds)`,
      row(`base ${base.commit.slice(0, 8)}`, figures.base),
      row(`next ${next.commit === 'working tree' ? 'tree' : next.commit.slice(0, 8)}`, figures.next),
      `node CPU per ${unit}, next ÷ base, median of the rounds' medians: ${ratioText(summary.ratio)}, ` +
        `lower in ${summary.lowerIn} of ${summary.rounds} rounds`,
    ].join('\n'),
  );
  console.log(
    JSON.stringify({ options, baseCommit: base.commit, nextCommit: next.commit, ...figures, summary, rounds }),
  );
} finally {
  await redis?.stop();
}
process.exit(0);
