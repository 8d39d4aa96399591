import type { RatioSpec } from './ratio-table.ts';
import { figureOf } from '../stats/repetitions.ts';
import { faninId, type FaninFigures } from './results.ts';

type Results = Parameters<RatioSpec['numerator']>[0];

const fanin =
  (system: FaninFigures['system'], flows: number, field: 'completionsPerSec' | 'unblockP99') => (r: Results) =>
    r.fanin?.[faninId(system, flows)]?.[field];

/** Refusals summed over every repetition: one refused call in any of them misses "0 refusals". */
const totalRefusals = (flows: number) => (r: Results) => {
  const f = r.fanin?.[faninId('planhub', flows)];
  return f && figureOf([Object.values(f.refusalsByCode).reduce((a, b) => a + b, 0)]);
};

/** The fan-in scenario's targets (issue 9), for each number of flows the run measured. */
export const faninRatioSpecs = (flows: readonly number[], children: number, inFlight: number): RatioSpec[] =>
  flows.flatMap((f): RatioSpec[] => {
    const shape = `${f} flows × ${children} children, ${inFlight} in flight`;
    return [
      {
        label: `fan-in child completions/s, PlanHub ÷ BullMQ FlowProducer (${shape})`,
        unit: '/s',
        numerator: fanin('planhub', f, 'completionsPerSec'),
        denominator: fanin('bullmq', f, 'completionsPerSec'),
        target: { op: '>=', value: 1, source: 'issue 9' },
      },
      {
        label: `fan-in refusals (non-ok answers, all repetitions), PlanHub (${shape})`,
        unit: 'calls',
        numerator: totalRefusals(f),
        target: { op: '<=', value: 0, source: 'issue 9', absolute: true },
      },
      {
        label: `fan-in unblock p99, PlanHub step_unblocked ÷ BullMQ parent picked up (${shape})`,
        unit: 'ms',
        numerator: fanin('planhub', f, 'unblockP99'),
        denominator: fanin('bullmq', f, 'unblockP99'),
        target: { op: '<=', value: 2, source: 'issue 9' },
      },
    ];
  });
