import type { BenchConfig } from '../config.ts';
import type { MachineInfo } from './machine.ts';
import type { RatioRow } from './ratio-table.ts';
import { faninTable, faninViolations } from './fanin-table.ts';
import { crowdTable } from './crowd.ts';
import { frameAttackTable } from './frame-attack.ts';
import { isolationTable } from './isolation-table.ts';
import type { IsolationRow } from '../isolation/suite.ts';
import { latencyTable, ratioTable, throughputTable } from './render.ts';
import type { BenchResults } from './results.ts';

/** Everything `pnpm bench` writes to JSON: figures, ratios, and what they were measured on and how. */
export interface BenchReport {
  generated_at: string;
  duration_s: number;
  machine: MachineInfo;
  config: BenchConfig;
  results: BenchResults;
  ratios: RatioRow[];
  /** Every probe of every rate search: [rate, p99 ms, sustained]. */
  searches: Record<string, Array<[number, number, boolean]>>;
  /** The isolation scenario, when it ran. */
  isolation?: IsolationRow[];
}

const isolationSection = (report: BenchReport): string[] =>
  report.isolation === undefined
    ? []
    : [
        "## Isolation: a node's CPU for workspaces it does not serve",
        '',
        'Node B serves one idle watcher while N busy workspaces write through node A (each with one agent completing' +
          ' steps, one call in flight, and a dashboard on A watching it). Each workspace has its own sharded channel' +
          ' and B subscribes only to the workspaces its clients watch, so its CPU should stay flat as N grows.',
        '',
        isolationTable(report.isolation, 'markdown'),
        '',
      ];

const faninSection = (report: BenchReport): string[] => {
  if (Object.keys(report.results.fanin ?? {}).length === 0) return [];
  const violations = faninViolations(report.results);
  return [
    '## Fan-in: PlanHub and BullMQ FlowProducer on the same Redis',
    '',
    `Each flow is a parent waiting on ${report.config.fanin.children} children, ${report.config.fanin.inFlight}` +
      ' child completions in flight in total; how it is measured and what "unblock" means on each side:' +
      ' [bench-method.md](bench-method.md).',
    '',
    faninTable(report.results, 'markdown'),
    '',
    violations.length === 0
      ? 'Every parent whose children all completed was unblocked exactly once, with all outputs.'
      : `Correctness violated: ${violations.join('; ')}.`,
    '',
  ];
};

const frameAttackSection = (report: BenchReport): string[] =>
  report.results.frameAttack === undefined
    ? []
    : [
        '## Huge-frame attack: what refused frames cost a bystander',
        '',
        "One agent sends frames of 60,000 keys that the node refuses on their raw text; another workspace's agent" +
          ' polls at a fixed rate, in quiet and loud phases that alternate: [bench-method.md](bench-method.md).',
        '',
        frameAttackTable(report.results, 'markdown'),
        '',
      ];

const crowdSection = (report: BenchReport): string[] =>
  report.results.crowd === undefined
    ? []
    : [
        "## A crowded workspace: what one workspace's fan-out costs another's calls",
        '',
        "Many connections watch one workspace, which gets events at a steady rate in loud phases; another workspace's" +
          ' agent polls at a fixed rate throughout: [bench-method.md](bench-method.md).',
        '',
        crowdTable(report.results, 'markdown'),
        '',
      ];

const machineLine = (m: MachineInfo) =>
  `${m.cpu_model}, ${m.cores} cores, ${m.memory_gib} GiB; ${m.os}; Node ${m.node}; Redis ${m.redis}; ` +
  `1-minute load average ${m.load_average.start} at the start, ${m.load_average.end} at the end`;

/** The text of docs/bench.md: the three tables, the machine, and how the numbers were made. */
export const renderMarkdown = (report: BenchReport): string => {
  const c = report.config;
  const judged = report.ratios.filter((r) => r.verdict === 'pass' || r.verdict === 'miss');
  const missed = judged.filter((r) => r.verdict === 'miss').map((r) => r.label);
  return [
    '# PlanHub benchmark',
    '',
    `Measured by \`pnpm bench\` on ${report.generated_at.slice(0, 10)} in ${Math.round(report.duration_s)} s.`,
    `Machine: ${machineLine(report.machine)}. Everything (Redis, every server process, the load generator) ran on` +
      ' this one machine, so the floors and PlanHub competed for the same cores; the ratios are what carries over.',
    `Raw figures: [bench-latest.json](bench-latest.json).`,
    '',
    '## Ratios and targets (docs/invariants.md, performance targets; issue 9 and security where marked)',
    '',
    `Targets met: ${judged.length - missed.length} of ${judged.length}` +
      (missed.length > 0 ? ` (missed: ${missed.join('; ')}).` : '.'),
    '',
    ratioTable(report.ratios, 'markdown'),
    '',
    '## Throughput',
    '',
    throughputTable(report.results, 'markdown'),
    '',
    '## Latency',
    '',
    latencyTable(report.results, 'markdown'),
    '',
    ...faninSection(report),
    ...isolationSection(report),
    ...frameAttackSection(report),
    ...crowdSection(report),
    '## Running it',
    '',
    '`pnpm bench` needs `redis-server` on the PATH and starts everything itself (a private Redis on a free port,' +
      ' the floor servers, two PlanHub nodes on that Redis and one on the memory store). It prints the tables and' +
      ' writes `.bench/latest.json`; server logs go to `.bench/logs/`. Environment: `BENCH_QUICK=1` (smoke run of' +
      ' about a minute), `BENCH_REPS`, `BENCH_PROBE_MS`, `BENCH_WARMUP_MS`, `BENCH_P99_TARGET_MS`, `BENCH_PLANS`,' +
      ' `BENCH_STEPS`, `BENCH_CROSS_RATE`, `BENCH_MAX_PROBES`, `BENCH_OUT`, and `BENCH_PUBLISH=1` to also write this' +
      ' file and `docs/bench-latest.json`. The fan-in scenario: `BENCH_FANIN_FLOWS` (default 100,1000),' +
      ' `BENCH_FANIN_CHILDREN`, `BENCH_FANIN_IN_FLIGHT`, `BENCH_FANIN_TIMEOUT_S`; `pnpm bench --only fanin --reps 1`' +
      ' runs it alone. The isolation scenario: `BENCH_ISOLATION_BUSY` (default 1,5,20),' +
      ' `BENCH_ISOLATION_WINDOW_MS` (default 3000, 1000 in a quick run); `--only isolation` runs it alone. The' +
      ' huge-frame attack:' +
      ' `BENCH_ATTACK_ROUNDS` (default 8), `BENCH_ATTACK_PHASE_MS` (default 500); `--only frame-attack` runs it alone.' +
      ' Flags (the flag wins): --only, --reps, --quick, --out, --fanin-flows, --fanin-children, --fanin-in-flight,' +
      ' --fanin-timeout, --isolation-busy, --attack-rounds, --attack-phase-ms, --server.' +
      ' The PlanHub nodes run the' +
      ' production bundle, built from the current sources at the start of the run; `BENCH_SERVER=source`' +
      ' (`--server source`) runs the TypeScript sources through tsx instead. A run is only as quiet as the' +
      ' machine: check the load average above.',
    '',
    '## Method',
    '',
    `- ${c.repetitions} repetitions of every measurement, interleaved (floor, PlanHub, floor, …); figures are medians` +
      ' with the (min–max) range over the repetitions. Ratios are computed per repetition, then summarized.',
    `- Open loop: requests are sent at a fixed arrival rate whatever the server does, and latency is measured from` +
      ' each request’s intended send time into an HdrHistogram (hdr-histogram-js), so stalls are charged to every' +
      ` request queued behind them. Each run: ${c.warmupMs} ms warm-up (not recorded), then ${c.probeMs} ms measured.`,
    `- Throughput is the highest fixed rate whose p99 stays ≤ ${c.p99TargetMs} ms with no error and every request` +
      ' answered, found by a geometric search (bracket, then bisect to within 8%). The search grows past its probe' +
      ' budget until some rate fails (a few probes more at most), so a figure is the capacity, not the highest rate' +
      ' it had time to try; the notes name any repetition where no rate failed.',
    '- Latency comparisons run the floor and PlanHub at the same rate: half the lower of their two throughputs.',
    '- "CPU µs/req" is the CPU time (user + system, from /proc) that the serving processes spent per request during' +
      ' a latency run: the server(s) and, where used, Redis (both PlanHub nodes for Redis runs, since every node' +
      ' consumes every event). Unlike latency, other load on the machine barely moves it.',
    `- Cross-node runs (broadcast floor, event delivery, auto-unblock) use ${c.crossRate} samples/s. The broadcast` +
      ' floor is two socket.io servers with @socket.io/redis-adapter: a client of A emits, a client of B receives.',
    `- The load's agents complete one step per setStepStatus call on plans of ${c.stepsPerPlan} steps; each agent` +
      ' alternates two identities so that a used-up plan is rolled over (completePlan, createPlan, startPlan) in' +
      ' the background while the other identity carries the measured calls. First plans are shorter by a different' +
      ' amount per agent (from the full size down to 1 step), so the agents roll over at different times, not all at' +
      ' once. The nodes run with PLANHUB_LIMIT_CALLS_PER_SECOND=1000000: the per-agent call budget (200/s by' +
      ' default) is a policy, and on a fast machine it refused calls before the node ran out of capacity; the' +
      ' limiter still counts every call.',
    `- Each figure is from the server processes started by the bench: ${c.server === 'source' ? '`node --import tsx server/src/main.ts` (BENCH_SERVER=source: the sources as `pnpm start` runs them)' : '`node server/.bench/dist/main.js`, the production bundle (what the image and `pnpm start:prod` run), built from the current sources at the start of the run'} with` +
      ' REDIS_URL/REDIS_PREFIX (Redis store, nodes A and B) or without (memory store), LOG_LEVEL=warn,' +
      ' PLANHUB_APPROVAL_POLICY=auto and the raised call budget above; the floors are test/bench/floors/*.ts. Redis runs without persistence.',
    `- "Stored plans": ${c.storedPlans} plans seeded through the store's transaction/commit (the server's own` +
      ' savePlan), 100 per agent (99 completed, 1 in progress, 5 steps each), in the workspace the measured agents' +
      ' use. The "10 stored plans" runs use a fresh workspace seeded with 10 plans each time.',
    '',
    ...(report.results.notes.length > 0 ? ['## Notes', '', ...report.results.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
};
