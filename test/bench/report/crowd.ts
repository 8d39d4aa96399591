import { CROWD_BYSTANDER_RATE, CROWD_EVENTS_PER_SECOND } from '../crowd/shape.ts';
import type { RatioSpec } from './ratio-table.ts';
import { bystanderTable } from './bystander-table.ts';
import { formatNumber } from './render.ts';
import type { BenchResults } from './results.ts';

/**
 * The crowded workspace's target: one workspace's fan-out to its many watchers may at most double another workspace's
 * tail latency (a noisy neighbour, as the huge-frame attack is a hostile one).
 */
export const CROWD_RATIO_SPECS: readonly RatioSpec[] = [
  {
    label:
      `bystander p99 while another workspace's watchers get events ÷ quiet p99 ` +
      `(${CROWD_EVENTS_PER_SECOND} events/s to each watcher; ${CROWD_BYSTANDER_RATE} calls/s)`,
    unit: 'ms',
    numerator: (r) => r.crowd?.loud.p99,
    denominator: (r) => r.crowd?.quiet.p99,
    target: { op: '<=', value: 2, source: 'security' },
  },
];

/** The bystander's latency in both kinds of phase, and what the watchers received. */
export const crowdTable = (results: BenchResults, style: 'text' | 'markdown'): string => {
  const c = results.crowd;
  if (!c) return '';
  const table = bystanderTable(c.quiet, c.loud, 'watchers getting events', style);
  return (
    `${table}\n\n${c.rounds} quiet/loud pairs of ${formatNumber(c.phaseMs)} ms per repetition at ${c.rate} calls/s; ` +
    `${c.watchers} connections watch the other workspace, which gets ${c.eventsPerSecond} events/s in loud phases ` +
    `(${formatNumber(c.pushes)} pushes received over the measured phases).`
  );
};

/** Bystander calls that failed: the ratio would hide them. */
export const crowdNotes = (results: BenchResults): string[] => {
  const c = results.crowd;
  if (!c || c.quiet.errors + c.loud.errors === 0) return [];
  const first = c.loud.firstError ?? c.quiet.firstError;
  return [
    `crowded workspace: ${c.quiet.errors + c.loud.errors} bystander calls failed or went unanswered` +
      (first !== undefined ? ` (first: ${first}).` : '.'),
  ];
};
