import type { Figure } from '../stats/repetitions.ts';
import type { RatioRow, Target } from './ratio-table.ts';
import type { BenchResults, LatencyId, ThroughputId } from './results.ts';
import { LATENCY_IDS, THROUGHPUT_IDS } from './results.ts';

export const THROUGHPUT_LABELS: Record<ThroughputId, string> = {
  'floor.echo': 'floor: socket.io emitWithAck echo (50 connections)',
  'floor.redis': 'floor: echo + 1 Redis round trip (HSET+XADD+PUBLISH), 50 connections',
  'planhub.memory.1': 'setStepStatus, memory store, 1 agent',
  'planhub.memory.50': 'setStepStatus, memory store, 50 agents',
  'planhub.redis.1': 'setStepStatus, Redis store, 1 agent',
  'planhub.redis.50': 'setStepStatus, Redis store, 50 agents (10 stored plans)',
  'planhub.redis.50.stored': 'setStepStatus, Redis store, 50 agents (100k stored plans)',
};

export const LATENCY_LABELS: Record<LatencyId, string> = {
  'floor.echo.50': 'floor: echo, 50 connections',
  'floor.redis.50': 'floor: echo + Redis round trip, 50 connections',
  'floor.redis.1': 'floor: echo + Redis round trip, 1 connection',
  'floor.broadcast': 'floor: cross-node broadcast (socket.io Redis adapter)',
  'planhub.memory.50': 'setStepStatus, memory, 50 agents',
  'planhub.refused.50': 'a call naming no tool (refused, no store access), memory, 50 agents',
  'planhub.redis.50': 'setStepStatus, Redis, 50 agents',
  'planhub.redis.50.stored': 'setStepStatus, Redis, 50 agents, 100k stored plans',
  'planhub.redis.1': 'setStepStatus, Redis, 1 agent',
  'planhub.event': 'cross-node event (setStepStatus on A → subscriber on B)',
  'planhub.unblock': 'auto-unblock (completeStepWithOutput on A → step_unblocked on B)',
};

export const formatNumber = (n: number): string => {
  if (!Number.isFinite(n)) return '–';
  if (Number.isInteger(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 100) return String(Math.round(n));
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
};

/** `median (min–max)`, or just the value when there was one repetition. */
export const formatFigure = (f: Figure | undefined): string => {
  if (!f || !Number.isFinite(f.median)) return '–';
  if (f.samples.length <= 1 || f.min === f.max) return formatNumber(f.median);
  return `${formatNumber(f.median)} (${formatNumber(f.min)}–${formatNumber(f.max)})`;
};

export const renderTable = (headers: readonly string[], rows: readonly string[][], style: 'text' | 'markdown') => {
  if (style === 'markdown') {
    const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
    return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};

export const throughputTable = (results: BenchResults, style: 'text' | 'markdown') =>
  renderTable(
    ['throughput (highest rate meeting the p99 target)', 'req/s, median (range)'],
    THROUGHPUT_IDS.filter((id) => results.throughput[id]).map((id) => [
      THROUGHPUT_LABELS[id],
      formatFigure(results.throughput[id]),
    ]),
    style,
  );

export const latencyTable = (results: BenchResults, style: 'text' | 'markdown') =>
  renderTable(
    ['latency from intended send time (ms)', 'rate/s', 'p50', 'p90', 'p99', 'p99.9', 'max', 'errors', 'CPU µs/req'],
    LATENCY_IDS.flatMap((id) => {
      const l = results.latency[id];
      if (!l) return [];
      return [
        [
          LATENCY_LABELS[id],
          formatNumber(l.rate),
          formatFigure(l.p50),
          formatFigure(l.p90),
          formatFigure(l.p99),
          formatFigure(l.p999),
          formatFigure(l.max),
          String(l.errors),
          formatFigure(l.cpuUs),
        ],
      ];
    }),
    style,
  );

const targetText = (t: Target) =>
  `${t.op === '>=' ? '≥' : '≤'} ${t.value}${t.absolute ? '' : '×'}` + (t.source ? ` (${t.source})` : '');

export const ratioTable = (rows: readonly RatioRow[], style: 'text' | 'markdown') =>
  renderTable(
    ['ratio', 'PlanHub', 'reference', 'ratio, median (range)', 'target', 'result'],
    rows.map((r) => [
      r.label,
      formatFigure(r.numerator),
      formatFigure(r.denominator),
      formatFigure(r.ratio),
      r.target ? targetText(r.target) : '',
      r.verdict,
    ]),
    style,
  );
