/**
 * `pnpm bench` (docs/invariants.md, performance targets): starts its own Redis, floor servers and PlanHub nodes as separate processes, drives
 * them from this process with open-loop load, and reports PlanHub's figures as ratios to the floors measured in the
 * same run; then the fan-in scenario, PlanHub against BullMQ's FlowProducer on the same Redis. Configuration: see
 * config.ts (BENCH_QUICK=1 for a smoke run; `--only fanin --reps 1` for the fan-in alone). The isolation scenario
 * shows a node's CPU for workspaces it does not serve as the busy ones grow (`--only isolation`); the frame-attack
 * one, a bystander's p99 while another agent sends huge frames (`--only frame-attack`); the crowd one, a bystander's
 * p99 while another workspace's many watchers get events (`--only crowd`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { benchConfigFromEnv } from './config.ts';
import { runCrowdSuite } from './crowd/suite.ts';
import { runFaninSuite } from './fanin/suite.ts';
import { runFrameAttackSuite } from './frame-attack/suite.ts';
import { runIsolationSuite } from './isolation/suite.ts';
import { startCluster, type Cluster } from './infra/cluster.ts';
import { startFaninNode } from './infra/fanin-node.ts';
import type { NodeServer } from './infra/processes.ts';
import { assertHealthy, REPO_ROOT } from './infra/processes.ts';
import { startRedis } from './infra/redis.ts';
import { CROWD_RATIO_SPECS, crowdNotes, crowdTable } from './report/crowd.ts';
import { faninRatioSpecs } from './report/fanin-ratios.ts';
import { faninTable, faninViolations } from './report/fanin-table.ts';
import { FRAME_ATTACK_RATIO_SPECS, frameAttackNotes, frameAttackTable } from './report/frame-attack.ts';
import { isolationTable } from './report/isolation-table.ts';
import { currentLoad, machineInfo } from './report/machine.ts';
import { renderMarkdown, type BenchReport } from './report/markdown.ts';
import { RATIO_SPECS, ratioRows } from './report/ratio-table.ts';
import { latencyTable, ratioTable, throughputTable } from './report/render.ts';
import { emptyResults } from './report/results.ts';
import { runFloorSuite } from './scenarios/floor-suite.ts';

const config = benchConfigFromEnv(process.env, process.argv.slice(2));
const began = Date.now();
const loadAtStart = currentLoad();
const progress = (line: string) =>
  process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
const results = emptyResults();
const withFloors = config.only === 'all' || config.only === 'floors';
const withFanin = config.only === 'all' || config.only === 'fanin';
const withIsolation = config.only === 'all' || config.only === 'isolation';
const withFrameAttack = config.only === 'all' || config.only === 'frame-attack';
const withCrowd = config.only === 'all' || config.only === 'crowd';

progress(
  `${config.quick ? 'quick ' : ''}run${config.only === 'all' ? '' : ` (${config.only} only)`}: ` +
    `${config.repetitions} repetitions, ` +
    (withFloors
      ? `${config.probeMs} ms per run, p99 target ${config.p99TargetMs} ms, ${config.storedPlans} stored plans, `
      : '') +
    (withFanin ? `fan-in ${config.fanin.flows.join(' and ')} flows × ${config.fanin.children}, ` : '') +
    (withIsolation ? `isolation ${config.isolation.busy.join(', ')} busy workspaces, ` : '') +
    (withFrameAttack
      ? `frame attack ${config.frameAttack.rounds} × 2 phases of ${config.frameAttack.phaseMs} ms, `
      : '') +
    (withCrowd
      ? `crowd of ${config.crowd.watchers} watchers ${config.crowd.rounds} × 2 phases of ${config.crowd.phaseMs} ms, `
      : '') +
    `load average ${loadAtStart}`,
);
const redis = await startRedis();
let cluster: Cluster | undefined;
let faninNode: NodeServer | undefined;
try {
  [cluster, faninNode] = await Promise.all([
    withFloors ? startCluster(redis, config.server) : undefined,
    withFanin ? startFaninNode(redis.url, Math.max(...config.fanin.flows), config.server) : undefined,
  ]);
  progress(`servers up (Redis ${redis.version} at ${redis.url})`);
  const searches = cluster ? await runFloorSuite(cluster, config, results, progress) : {};
  if (faninNode) {
    const node = faninNode;
    results.fanin = await runFaninSuite(
      { planhubUrl: node.url, redisUrl: redis.url },
      { ...config.fanin, repetitions: config.repetitions },
      progress,
      () => assertHealthy(node),
    );
  }
  const isolation = withIsolation
    ? await runIsolationSuite(
        redis.url,
        { ...config.isolation, repetitions: config.repetitions, server: config.server },
        progress,
      )
    : undefined;
  if (withFrameAttack) {
    results.frameAttack = await runFrameAttackSuite(
      { ...config.frameAttack, repetitions: config.repetitions, server: config.server },
      progress,
    );
    results.notes.push(...frameAttackNotes(results));
  }
  if (withCrowd) {
    results.crowd = await runCrowdSuite(
      { ...config.crowd, repetitions: config.repetitions, server: config.server },
      progress,
    );
    results.notes.push(...crowdNotes(results));
  }

  const specs = [
    ...(withFloors ? RATIO_SPECS : []),
    ...(withFanin ? faninRatioSpecs(config.fanin.flows, config.fanin.children, config.fanin.inFlight) : []),
    ...(withFrameAttack ? FRAME_ATTACK_RATIO_SPECS : []),
    ...(withCrowd ? CROWD_RATIO_SPECS : []),
  ];
  const ratios = ratioRows(results, specs);
  const report: BenchReport = {
    generated_at: new Date().toISOString(),
    duration_s: (Date.now() - began) / 1000,
    machine: machineInfo(redis.version, loadAtStart),
    config,
    results,
    ratios,
    searches,
    ...(isolation ? { isolation } : {}),
  };
  const m = report.machine;
  console.log(
    `\nPlanHub bench — ${m.cpu_model}, ${m.cores} cores, Node ${m.node}, Redis ${m.redis}, ` +
      `load average ${m.load_average.start} → ${m.load_average.end}\n`,
  );
  if (ratios.length > 0) console.log(ratioTable(ratios, 'text'));
  if (withFloors) console.log(`\n${throughputTable(results, 'text')}\n\n${latencyTable(results, 'text')}`);
  if (withFanin) console.log(`\n${faninTable(results, 'text')}`);
  if (isolation) console.log(`\n${isolationTable(isolation, 'text')}`);
  if (results.frameAttack) console.log(`\n${frameAttackTable(results, 'text')}`);
  if (results.crowd) console.log(`\n${crowdTable(results, 'text')}`);
  if (results.notes.length > 0) console.log(`\nNotes:\n${results.notes.map((n) => `- ${n}`).join('\n')}`);
  const violations = faninViolations(results);
  if (violations.length > 0) {
    console.error(`\nFAN-IN CORRECTNESS VIOLATED:\n${violations.map((v) => `- ${v}`).join('\n')}`);
    process.exitCode = 1;
  }

  // An absolute BENCH_OUT is taken as it is, a relative one from the repository root.
  const outFile = resolve(REPO_ROOT, config.outFile);
  // Formatted with the repository's Prettier settings, so the committed copy passes `pnpm format:check`.
  const json = await format(JSON.stringify(report), { ...(await resolveConfig(outFile)), filepath: outFile });
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, json);
  console.log(`\nWrote ${config.outFile}`);
  if (config.publish && config.only !== 'all') console.log('BENCH_PUBLISH=1 ignored: only a full run is published.');
  else if (config.publish) {
    mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
    writeFileSync(join(REPO_ROOT, 'docs', 'bench-latest.json'), json);
    writeFileSync(join(REPO_ROOT, 'docs', 'bench.md'), renderMarkdown(report));
    console.log('Wrote docs/bench-latest.json and docs/bench.md');
  }
} finally {
  await Promise.all([cluster?.stop(), faninNode?.stop()]);
  await redis.stop();
}
