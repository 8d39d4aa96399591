import { formatDuration } from '@planhub/shared';
import { clockOf, h } from '../dom.ts';
import type { DashboardState } from '../state.ts';

const ago = (ms: number, now: number): string => `${formatDuration(Math.max(1000, now - ms))} ago`;

/**
 * What the page shows after its connection dropped, until it has caught up again: when it lost the connection and
 * how old the newest event it applied is, since statuses, presence and approvals shown may have changed since.
 */
export const staleView = (state: DashboardState, now = Date.now()): Node[] => {
  const lost = state.lostAt;
  if (lost === undefined) return [];
  const last = state.feed.at(-1)?.timestamp;
  const lastMs = last ? Date.parse(last) : NaN;
  const asOf = Number.isNaN(lastMs)
    ? ''
    : ` Shown as of the last event, at ${clockOf(lastMs)} (${ago(lastMs, now)}); statuses, presence and approvals may have changed since.`;
  if (state.status === 'live')
    return [h('p', {}, `Connected again; catching up on what happened since ${clockOf(lost)}…`)];
  return [
    h(
      'p',
      {},
      h('strong', {}, `Not connected since ${clockOf(lost)} (${ago(lost, now)}).`),
      asOf,
      state.status === 'refused' ? '' : ' Trying again…',
    ),
  ];
};
