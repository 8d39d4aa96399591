import { formatFigure, renderTable } from './render.ts';
import type { AttackPhaseFigures } from './results.ts';

const row = (label: string, p: AttackPhaseFigures) => [
  label,
  String(p.calls),
  formatFigure(p.p50),
  formatFigure(p.p90),
  formatFigure(p.p99),
  formatFigure(p.max),
  String(p.errors),
];

/** A bystander's latency in quiet phases and in loud ones (`loudLabel` says what made them loud). */
export const bystanderTable = (
  quiet: AttackPhaseFigures,
  loud: AttackPhaseFigures,
  loudLabel: string,
  style: 'text' | 'markdown',
): string =>
  renderTable(
    ['bystander getPlanStatus, from intended send time (ms)', 'calls', 'p50', 'p90', 'p99', 'max', 'errors'],
    [row('quiet phases', quiet), row(loudLabel, loud)],
    style,
  );
