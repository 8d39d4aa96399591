import { formatFigure, renderTable } from './render.ts';
import type { BenchResults, FaninFigures } from './results.ts';

const SYSTEM_LABELS: Record<FaninFigures['system'], string> = {
  planhub: 'PlanHub: completeStepWithOutput → step_unblocked',
  bullmq: 'BullMQ FlowProducer: child worker → parent worker',
};

const refusalText = (f: FaninFigures) => {
  const codes = Object.entries(f.refusalsByCode);
  return codes.length === 0 ? '0' : codes.map(([code, n]) => `${n} ${code}`).join(', ');
};

/** The fan-in scenario: both systems at every size, with the correctness checks' outcome. */
export const faninTable = (results: BenchResults, style: 'text' | 'markdown') =>
  renderTable(
    [
      'fan-in (flows × children, in flight)',
      'child completions/s',
      'unblock p50 ms',
      'unblock p99 ms',
      'refused (all reps)',
      'children done',
      'parents unblocked',
      'violations',
      'timed out',
      'load avg',
    ],
    Object.values(results.fanin ?? {}).map((f) => [
      `${SYSTEM_LABELS[f.system]} (${f.flows} × ${f.children}, ${f.inFlight})`,
      formatFigure(f.completionsPerSec),
      formatFigure(f.unblockP50),
      formatFigure(f.unblockP99),
      refusalText(f),
      `${f.completed}/${f.expectedChildren}`,
      `${f.unblocked}/${f.expectedParents}`,
      String(f.failures.length),
      String(f.timedOut),
      formatFigure(f.loadAverage),
    ]),
    style,
  );

/** Every violation of the fan-in's promise, named by run: printed loudly, and the bench exits non-zero. */
export const faninViolations = (results: BenchResults): string[] =>
  Object.entries(results.fanin ?? {}).flatMap(([id, f]) => f.failures.map((failure) => `fan-in ${id}: ${failure}`));
