import type { Histogram } from 'hdr-histogram-js';
import type { Socket } from 'socket.io-client';
import {
  ATTACK_FRAME_KEYS,
  ATTACK_FRAMES_PER_SECOND,
  startCpuAttacker,
  type CpuAttacker,
} from '../../security/support/cpu-attack-driver.ts';
import type { ServerBuild } from '../config.ts';
import { planhubEntry } from '../infra/planhub-entry.ts';
import { assertHealthy, startNodeServer } from '../infra/processes.ts';
import { runOpenLoop } from '../load/open-loop.ts';
import { call, openAgent } from '../load/wire-client.ts';
import { currentLoad } from '../report/machine.ts';
import type { FrameAttackFigures } from '../report/results.ts';
import { newHistogram, summarize, type LatencySummary } from '../stats/histogram.ts';
import type { ProbeOutcome } from '../stats/rate-search.ts';
import { phaseFigures } from '../stats/phase-figures.ts';
import { figureOf } from '../stats/repetitions.ts';
import { BYSTANDER_RATE } from './shape.ts';

export interface FrameAttackConfig {
  /** Quiet/loud pairs per repetition. */
  rounds: number;
  /** Measured length of each phase. */
  phaseMs: number;
  repetitions: number;
  server: ServerBuild;
}

/** Only the scan of a frame's raw text (transport/frame-guard.ts) words its refusal so. */
const REFUSED_BY_SCAN = /^The call has more than \d+ keys and array elements/;

const startAttackNode = (server: ServerBuild) =>
  startNodeServer('planhub-frame-attack', planhubEntry(server), {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PLANHUB_APPROVAL_POLICY: 'auto',
    PLANHUB_SECRET: '',
    // The bystander polls faster than an agent's default budget, and the frames (about 39 cost units each) must be
    // refused on their shape, not on what they cost their address: the scenario measures the frame guard.
    PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
    PLANHUB_LIMIT_CALLS_PER_ADDRESS_PER_SECOND: '1000000',
  });

/**
 * One agent sends 60,000-key frames (about 660 KB each, 7 a second) that the node must refuse on their raw text;
 * another workspace's agent polls getPlanStatus at a fixed rate. Quiet and loud phases alternate, so whatever else
 * loads the machine weighs on both alike; each kind's phases add up to one latency distribution per repetition.
 */
export const runFrameAttackSuite = async (
  config: FrameAttackConfig,
  progress: (line: string) => void,
): Promise<FrameAttackFigures> => {
  const node = await startAttackNode(config.server);
  let bystander: Socket | undefined;
  let attacker: CpuAttacker | undefined;
  try {
    const agent = await openAgent(node.url, 'frame-attack-quiet', 'bystander');
    bystander = agent;
    const { plan_id } = await call(agent, 'createPlan', { title: 'steady', steps: ['a', 'b', 'c'] });
    const frames = await startCpuAttacker(node.url);
    attacker = frames;
    const phase = (into: Histogram | undefined) =>
      runOpenLoop({
        rate: BYSTANDER_RATE,
        warmupMs: 0,
        durationMs: config.phaseMs,
        drainMs: 10_000,
        send: async () => void (await call(agent, 'getPlanStatus', { plan_id })),
        ...(into ? { alsoRecordInto: into } : {}),
      });
    const round = async (quiet: Histogram | undefined, loud: Histogram | undefined) => {
      const q = await phase(quiet);
      // Loud from the first refusal on: the frames are reaching the node.
      await frames.start();
      const l = await phase(loud);
      await frames.pause();
      return [q, l] as const;
    };
    // Not recorded: the JIT, the connection and the node's frame path warm up.
    await round(undefined, undefined);

    const quiet = { summaries: [] as LatencySummary[], outcomes: [] as ProbeOutcome[] };
    const loud = { summaries: [] as LatencySummary[], outcomes: [] as ProbeOutcome[] };
    const loads: number[] = [];
    for (let rep = 1; rep <= config.repetitions; rep++) {
      loads.push(currentLoad());
      const [quietHistogram, loudHistogram] = [newHistogram(), newHistogram()];
      for (let r = 0; r < config.rounds; r++) {
        const [q, l] = await round(quietHistogram, loudHistogram);
        quiet.outcomes.push(q);
        loud.outcomes.push(l);
      }
      const [q, l] = [summarize(quietHistogram), summarize(loudHistogram)];
      quiet.summaries.push(q);
      loud.summaries.push(l);
      await assertHealthy(node);
      progress(
        `frame attack ${rep}/${config.repetitions}: bystander p99 quiet ${q.p99} ms, under attack ${l.p99} ms ` +
          `(${(l.p99 / q.p99).toFixed(2)}×), ${frames.answers().length} frames answered so far`,
      );
    }
    const answers = frames.answers();
    const answersByCode: Record<string, number> = {};
    for (const { code } of answers) answersByCode[code] = (answersByCode[code] ?? 0) + 1;
    return {
      rate: BYSTANDER_RATE,
      framesPerSecond: ATTACK_FRAMES_PER_SECOND,
      frameKeys: ATTACK_FRAME_KEYS,
      frameBytes: frames.frameBytes,
      rounds: config.rounds,
      phaseMs: config.phaseMs,
      quiet: phaseFigures(quiet.summaries, quiet.outcomes),
      loud: phaseFigures(loud.summaries, loud.outcomes),
      answersByCode,
      notRefusedByScan: answers.filter((a) => !REFUSED_BY_SCAN.test(a.message)).length,
      loadAverage: figureOf(loads),
    };
  } finally {
    bystander?.close();
    await attacker?.stop();
    await node.stop();
  }
};
