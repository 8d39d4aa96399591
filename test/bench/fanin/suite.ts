import type { FaninFigures } from '../report/results.ts';
import { faninId } from '../report/results.ts';
import { figureOf } from '../stats/repetitions.ts';
import { runBullmqFanin } from './bullmq-fanin.ts';
import { runPlanhubFanin } from './planhub-fanin.ts';
import type { FaninOutcome, FaninShape, FaninSystem } from './shape.ts';

export interface FaninTargets {
  /** The PlanHub node serving the scenario, and the Redis both systems run on. */
  planhubUrl: string;
  redisUrl: string;
}

export interface FaninPlan {
  flows: readonly number[];
  children: number;
  inFlight: number;
  timeoutMs: number;
  graceMs: number;
  repetitions: number;
}

let runs = 0;

/** Outcomes of one system at one size over the repetitions → the figures the report shows. */
export const faninFiguresOf = (outcomes: readonly FaninOutcome[], failed: readonly string[]): FaninFigures => {
  const first = outcomes[0];
  const refusalsByCode: Record<string, number> = {};
  for (const o of outcomes)
    for (const [code, n] of Object.entries(o.refusals)) refusalsByCode[code] = (refusalsByCode[code] ?? 0) + n;
  const sum = (f: (o: FaninOutcome) => number) => outcomes.reduce((total, o) => total + f(o), 0);
  const measured = outcomes.filter((o) => o.latency.count > 0);
  return {
    system: first?.system ?? 'planhub',
    flows: first?.flows ?? 0,
    children: first?.children ?? 0,
    inFlight: first?.inFlight ?? 0,
    completionsPerSec: figureOf(outcomes.map((o) => o.completionsPerSec)),
    unblockP50: figureOf(measured.map((o) => o.latency.p50)),
    unblockP99: figureOf(measured.map((o) => o.latency.p99)),
    refusals: figureOf(outcomes.map((o) => Object.values(o.refusals).reduce((a, b) => a + b, 0))),
    refusalsByCode,
    completed: sum((o) => o.completed),
    expectedChildren: sum((o) => o.flows * o.children),
    unblocked: sum((o) => o.unblocked),
    expectedParents: sum((o) => o.flows),
    failures: [...failed, ...outcomes.flatMap((o) => o.failures)],
    timedOut: outcomes.filter((o) => o.timedOut).length,
    setupSeconds: figureOf(outcomes.map((o) => o.setupMs / 1000)),
    loadAverage: figureOf(outcomes.map((o) => o.loadAverage)),
  };
};

const describe = (o: FaninOutcome) =>
  `${o.completed}/${o.flows * o.children} children in ${(o.elapsedMs / 1000).toFixed(1)} s ` +
  `(${o.completionsPerSec.toFixed(0)}/s), ${o.unblocked}/${o.flows} unblocked, ` +
  `p50 ${o.latency.p50} p99 ${o.latency.p99} ms, refusals ${JSON.stringify(o.refusals)}` +
  (o.timedOut ? ', TIMED OUT' : '') +
  (o.failures.length > 0 ? `, VIOLATIONS: ${o.failures.join('; ')}` : '') +
  `, setup ${(o.setupMs / 1000).toFixed(1)} s, load ${o.loadAverage}`;

/**
 * The fan-in scenario, PlanHub and BullMQ side by side on the same Redis: each repetition runs every size for
 * PlanHub then BullMQ, on a fresh workspace and fresh queues, so the two share the machine's state of the moment.
 */
export const runFaninSuite = async (
  targets: FaninTargets,
  plan: FaninPlan,
  progress: (line: string) => void,
  beforeEach: () => Promise<void>,
): Promise<Record<string, FaninFigures>> => {
  const outcomes = new Map<string, FaninOutcome[]>();
  const failed = new Map<string, string[]>();
  const systems: Array<[FaninSystem, (tag: string, shape: FaninShape) => Promise<FaninOutcome>]> = [
    ['planhub', (tag, shape) => runPlanhubFanin(targets.planhubUrl, tag, shape)],
    ['bullmq', (tag, shape) => runBullmqFanin(targets.redisUrl, tag, shape)],
  ];
  for (let rep = 1; rep <= plan.repetitions; rep++)
    for (const flows of plan.flows)
      for (const [system, run] of systems) {
        await beforeEach();
        const id = faninId(system, flows);
        const shape: FaninShape = { ...plan, flows };
        try {
          const outcome = await run(`f${++runs}`, shape);
          outcomes.set(id, [...(outcomes.get(id) ?? []), outcome]);
          progress(`rep ${rep} fan-in ${id} (${flows}×${plan.children}): ${describe(outcome)}`);
        } catch (err) {
          const message = `rep ${rep}: the run failed: ${err instanceof Error ? err.message : String(err)}`;
          failed.set(id, [...(failed.get(id) ?? []), message]);
          progress(`rep ${rep} fan-in ${id}: ${message}`);
        }
      }
  const figures: Record<string, FaninFigures> = {};
  for (const flows of plan.flows)
    for (const [system] of systems) {
      const id = faninId(system, flows);
      const list = outcomes.get(id) ?? [];
      const figure = faninFiguresOf(list, failed.get(id) ?? []);
      figures[id] = list.length > 0 ? figure : { ...figure, system, flows, children: plan.children };
    }
  return figures;
};
