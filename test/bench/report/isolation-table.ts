import type { IsolationRow } from '../isolation/suite.ts';
import { median } from '../isolation/suite.ts';
import { renderTable } from './render.ts';

const figure = (values: readonly number[]) =>
  values.length === 0
    ? '–'
    : `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;

/** The isolation scenario: node B's CPU for workspaces it does not serve, as the busy workspaces on A grow. */
export const isolationTable = (rows: readonly IsolationRow[], style: 'text' | 'markdown') =>
  renderTable(
    [
      'busy workspaces on node A',
      'events/s through A',
      'node B (one idle watcher) CPU ms/s, median (range)',
      'node A CPU ms/s, median (range)',
      'load avg',
    ],
    rows.map((r) => [
      String(r.busy),
      r.eventsPerSecond.toFixed(0),
      figure(r.idleNodeCpuMsPerSecond),
      figure(r.busyNodeCpuMsPerSecond),
      String(r.loadAverage),
    ]),
    style,
  );
