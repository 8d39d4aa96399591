import type { BenchConfig } from '../config.ts';
import { BENCH_PREFIX, type Cluster } from '../infra/cluster.ts';
import { broadcastSessions, eventSessions, unblockSessions } from '../load/cross-node-sessions.ts';
import type { Timing } from '../load/sessions.ts';
import { floorSessions, planhubSessions, refusedCallSessions } from '../load/sessions.ts';
import type { BenchReport } from '../report/markdown.ts';
import type { BenchResults } from '../report/results.ts';
import { figureOf } from '../stats/repetitions.ts';
import type { LatencyRun } from './latency-phase.ts';
import { runLatencyPhase } from './latency-phase.ts';
import { tryOnce } from './preflight.ts';
import { PLANS_PER_AGENT, seedWorkspace } from './seed-plans.ts';
import { runThroughputPhase, type ThroughputScenario } from './throughput-phase.ts';

/**
 * The floor comparisons (docs/invariants.md, performance targets): setStepStatus throughput and latency against the echo and echo + Redis
 * floors, with few and many stored plans, and cross-node delivery against the broadcast floor. Fills `results` and
 * returns every probe of every rate search.
 */
export const runFloorSuite = async (
  cluster: Cluster,
  config: BenchConfig,
  results: BenchResults,
  progress: (line: string) => void,
): Promise<BenchReport['searches']> => {
  // Rate searches give up on a run early (see throughput-phase.ts); fixed-rate latency runs wait longer for stragglers.
  const timing: Timing = { warmupMs: config.warmupMs, probeMs: config.probeMs, drainMs: 1000, quiesceMs: 10_000 };
  // Latency runs are compared in pairs (100k plans against 10, floor against PlanHub), so each starts once the
  // previous run's agents are reported offline (load/departures.ts). Every probe of a rate search follows another
  // probe of the same search, so all searches pay the same; waiting there measured no difference (see bench-method).
  const latencyTiming: Timing = { ...timing, drainMs: 5000, settleMs: config.settleMs };
  const redis = { url: cluster.redis.url, prefix: BENCH_PREFIX };
  progress(`floor servers up; seeding ${config.storedPlans} plans`);
  const seedStart = Date.now();
  await seedWorkspace(redis, 'bench-stored', config.storedPlans);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  results.notes.push(
    `Stored plans: ${config.storedPlans} plans over ${Math.ceil(config.storedPlans / PLANS_PER_AGENT)} agents ` +
      `seeded through transact/commit in ${seedSeconds.toFixed(1)} s into the workspace the measured agents use.`,
  );
  progress(`seeded in ${seedSeconds.toFixed(1)} s`);
  if (config.settleMs > 0)
    results.notes.push(
      `Each latency run starts measuring ${config.settleMs} ms after the last agent of an earlier run left, once ` +
        'its node has reported those agents offline (docs/bench-method.md, between runs).',
    );

  const small = async (tag: string) => {
    const workspace = `bench-small-${tag}`;
    await seedWorkspace(redis, workspace, 10);
    return workspace;
  };
  const steps = config.stepsPerPlan;
  const redisA = cluster.planhubA.url;
  const memory = cluster.planhubMemory.url;
  const fresh = (tag: string) => Promise.resolve(`bench-memory-${tag}`);
  const stored = () => Promise.resolve('bench-stored');

  const echo50 = floorSessions(cluster.floorEcho.url, 50);
  const redisFloor50 = floorSessions(cluster.floorRedis.url, 50);
  const redisFloor1 = floorSessions(cluster.floorRedis.url, 1);
  const planhubRedis50 = planhubSessions({ url: redisA, agents: 50, steps, workspace: small });
  const planhubRedis1 = planhubSessions({ url: redisA, agents: 1, steps, workspace: small });
  const planhubMemory50 = planhubSessions({ url: memory, agents: 50, steps, workspace: fresh });
  const planhubMemory1 = planhubSessions({ url: memory, agents: 1, steps, workspace: fresh });
  const planhubStored50 = planhubSessions({ url: redisA, agents: 50, steps, workspace: stored });

  const scenarios: ThroughputScenario[] = [
    { id: 'floor.echo', factory: echo50 },
    { id: 'planhub.memory.50', factory: planhubMemory50 },
    { id: 'floor.redis', factory: redisFloor50 },
    { id: 'planhub.redis.50', factory: planhubRedis50 },
    { id: 'planhub.redis.50.stored', factory: planhubStored50 },
    { id: 'planhub.redis.1', factory: planhubRedis1 },
    { id: 'planhub.memory.1', factory: planhubMemory1 },
  ];
  const healthy = () => cluster.assertHealthy();
  const throughput = await runThroughputPhase(scenarios, config, timing, progress, healthy);
  const searches: BenchReport['searches'] = {};
  for (const [id, samples] of throughput) {
    results.throughput[id] = figureOf(samples.rates);
    searches[id] = samples.probes;
    if (samples.errors.length > 0)
      results.notes.push(`${id}: failing probes saw errors: ${samples.errors.join(' | ')}`);
    if (samples.unbracketed > 0)
      results.notes.push(
        `${id}: in ${samples.unbracketed} of ${samples.rates.length} repetitions no rate tried failed; those figures are lower bounds.`,
      );
  }

  // Floor and PlanHub latency are compared at one rate both sustain: half the lower of their throughputs.
  const halfOfLower = (...ids: Array<keyof typeof results.throughput>) => {
    const lowest = Math.min(...ids.map((id) => results.throughput[id]?.median ?? Number.NaN));
    return Number.isFinite(lowest) && lowest > 0 ? Math.max(5, Math.round(lowest / 2)) : 50;
  };
  const rate50 = halfOfLower('floor.redis', 'planhub.redis.50');
  const rateMemory = halfOfLower('floor.echo', 'planhub.memory.50');
  const rate1 = halfOfLower('planhub.redis.1');
  // CPU per request counts every process a run keeps busy: both PlanHub nodes consume every event, and Redis.
  const pid = (s: { child: { pid?: number } }) => s.child.pid as number;
  const redisPids = [cluster.redis.pid];
  const planhubRedisPids = [pid(cluster.planhubA), pid(cluster.planhubB), ...redisPids];
  const floorRedisPids = [pid(cluster.floorRedis), ...redisPids];
  const latencyRuns: LatencyRun[] = [
    { id: 'floor.echo.50', rate: rateMemory, factory: echo50, pids: [pid(cluster.floorEcho)] },
    { id: 'planhub.memory.50', rate: rateMemory, factory: planhubMemory50, pids: [pid(cluster.planhubMemory)] },
    {
      id: 'planhub.refused.50',
      rate: rateMemory,
      factory: refusedCallSessions(memory, 50),
      pids: [pid(cluster.planhubMemory)],
    },
    { id: 'floor.redis.50', rate: rate50, factory: redisFloor50, pids: floorRedisPids },
    { id: 'planhub.redis.50', rate: rate50, factory: planhubRedis50, pids: planhubRedisPids },
    // Right after the 10-plan run in every repetition, at its rate: the stored plans' cost, paired.
    { id: 'planhub.redis.50.stored', rate: rate50, factory: planhubStored50, pids: planhubRedisPids },
    { id: 'floor.redis.1', rate: rate1, factory: redisFloor1, pids: floorRedisPids },
    { id: 'planhub.redis.1', rate: rate1, factory: planhubRedis1, pids: planhubRedisPids },
  ];

  const urlB = cluster.planhubB.url;
  const events = eventSessions({ urlA: redisA, urlB, agents: 10, steps });
  const samples = Math.ceil((config.crossRate * (config.warmupMs + config.probeMs)) / 1000) + 1;
  const unblock = unblockSessions({ urlA: redisA, urlB, samples });
  latencyRuns.push({
    id: 'floor.broadcast',
    rate: config.crossRate,
    factory: broadcastSessions(cluster.broadcastA.url, cluster.broadcastB.url),
    pids: [pid(cluster.broadcastA), pid(cluster.broadcastB), ...redisPids],
  });
  const eventsReady = await tryOnce(events);
  if (eventsReady === true)
    latencyRuns.push({ id: 'planhub.event', rate: config.crossRate, factory: events, pids: planhubRedisPids });
  else results.notes.push(`Cross-node event delivery not measured: one trial sample failed (${eventsReady}).`);
  const unblockReady = await tryOnce(unblockSessions({ urlA: redisA, urlB, samples: 1 }));
  if (unblockReady === true)
    latencyRuns.push({ id: 'planhub.unblock', rate: config.crossRate, factory: unblock, pids: planhubRedisPids });
  else results.notes.push(`Auto-unblock across nodes not measured: one trial sample failed (${unblockReady}).`);

  const latency = await runLatencyPhase(latencyRuns, config.repetitions, latencyTiming, progress, healthy);
  for (const [id, figures] of latency) results.latency[id] = figures;
  for (const [id, figures] of latency)
    if (figures.errors > 0)
      results.notes.push(`${id}: ${figures.errors} requests failed (${figures.firstError ?? 'no answer'}).`);
  await healthy();
  results.notes.push(
    '10k idle connections per node (docs/invariants.md, performance targets) is not measured by this bench.',
  );
  return searches;
};
