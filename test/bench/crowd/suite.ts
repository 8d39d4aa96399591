import type { Socket } from 'socket.io-client';
import type { ServerBuild } from '../config.ts';
import { planhubEntry } from '../infra/planhub-entry.ts';
import { assertHealthy, startNodeServer } from '../infra/processes.ts';
import { runOpenLoop } from '../load/open-loop.ts';
import { AgentSlot } from '../load/plan-agents.ts';
import { call, openAgent } from '../load/wire-client.ts';
import { currentLoad } from '../report/machine.ts';
import type { CrowdFigures } from '../report/results.ts';
import { newHistogram, summarize, type LatencySummary } from '../stats/histogram.ts';
import type { ProbeOutcome } from '../stats/rate-search.ts';
import { phaseFigures } from '../stats/phase-figures.ts';
import { figureOf } from '../stats/repetitions.ts';
import { CROWD_BYSTANDER_RATE, CROWD_EVENTS_PER_SECOND, CROWD_WORKSPACE } from './shape.ts';
import { startWatchers, type Watchers } from './watchers-process.ts';

export interface CrowdConfig {
  /** Quiet/loud pairs per repetition. */
  rounds: number;
  /** Measured length of each phase. */
  phaseMs: number;
  watchers: number;
  repetitions: number;
  server: ServerBuild;
}

const startCrowdNode = (server: ServerBuild, watchers: number) =>
  startNodeServer('planhub-crowd', planhubEntry(server), {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PLANHUB_APPROVAL_POLICY: 'auto',
    PLANHUB_SECRET: '',
    // Every watcher and the bystander come from this machine's one address; the bystander polls faster than an
    // agent's default budget. The scenario measures fan-out, not the limits.
    PLANHUB_LIMIT_CONNECTIONS_PER_ADDRESS: String(watchers + 100),
    PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
    PLANHUB_LIMIT_CALLS_PER_ADDRESS_PER_SECOND: '1000000',
  });

/**
 * A workspace watched by `watchers` connections (in a process of their own) gets a step completed
 * CROWD_EVENTS_PER_SECOND times a second in loud phases and nothing in quiet ones; another workspace's agent polls
 * getPlanStatus at a fixed rate throughout. Quiet and loud phases alternate, so whatever else loads the machine
 * weighs on both alike. What the ratio shows: how much one workspace's fan-out delays the calls of others.
 */
export const runCrowdSuite = async (config: CrowdConfig, progress: (line: string) => void): Promise<CrowdFigures> => {
  const node = await startCrowdNode(config.server, config.watchers);
  let watchers: Watchers | undefined;
  let writer: AgentSlot | undefined;
  let bystander: Socket | undefined;
  try {
    watchers = await startWatchers(node.url, config.watchers);
    writer = await AgentSlot.open(node.url, CROWD_WORKSPACE, 'crowd-writer', 100);
    const agent = await openAgent(node.url, 'crowd-bystander', 'bystander');
    bystander = agent;
    const { plan_id } = await call(agent, 'createPlan', { title: 'steady', steps: ['a', 'b', 'c'] });
    const loudWriter = writer;
    const phase = (loud: boolean, into: ReturnType<typeof newHistogram> | undefined) =>
      Promise.all([
        runOpenLoop({
          rate: CROWD_BYSTANDER_RATE,
          warmupMs: 0,
          durationMs: config.phaseMs,
          drainMs: 10_000,
          send: async () => void (await call(agent, 'getPlanStatus', { plan_id })),
          ...(into ? { alsoRecordInto: into } : {}),
        }),
        loud
          ? runOpenLoop({
              rate: CROWD_EVENTS_PER_SECOND,
              warmupMs: 0,
              durationMs: config.phaseMs,
              drainMs: 10_000,
              send: () => loudWriter.send(),
            })
          : undefined,
      ]).then(([outcome]) => outcome);
    // Not recorded: the JIT, the connections and the node's push path warm up.
    await phase(false, undefined);
    await phase(true, undefined);

    const quiet = { summaries: [] as LatencySummary[], outcomes: [] as ProbeOutcome[] };
    const loud = { summaries: [] as LatencySummary[], outcomes: [] as ProbeOutcome[] };
    const loads: number[] = [];
    const pushesBefore = await watchers.received();
    for (let rep = 1; rep <= config.repetitions; rep++) {
      loads.push(currentLoad());
      const [quietHistogram, loudHistogram] = [newHistogram(), newHistogram()];
      for (let r = 0; r < config.rounds; r++) {
        quiet.outcomes.push(await phase(false, quietHistogram));
        loud.outcomes.push(await phase(true, loudHistogram));
      }
      const [q, l] = [summarize(quietHistogram), summarize(loudHistogram)];
      quiet.summaries.push(q);
      loud.summaries.push(l);
      await assertHealthy(node);
      progress(
        `crowded workspace ${rep}/${config.repetitions}: bystander p99 quiet ${q.p99} ms, while ` +
          `${config.watchers} watchers get events ${l.p99} ms (${(l.p99 / q.p99).toFixed(2)}×)`,
      );
    }
    return {
      rate: CROWD_BYSTANDER_RATE,
      watchers: config.watchers,
      eventsPerSecond: CROWD_EVENTS_PER_SECOND,
      rounds: config.rounds,
      phaseMs: config.phaseMs,
      quiet: phaseFigures(quiet.summaries, quiet.outcomes),
      loud: phaseFigures(loud.summaries, loud.outcomes),
      pushes: (await watchers.received()) - pushesBefore,
      loadAverage: figureOf(loads),
    };
  } finally {
    bystander?.close();
    writer?.close();
    await watchers?.stop();
    await node.stop();
  }
};
