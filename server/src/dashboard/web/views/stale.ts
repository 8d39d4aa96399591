import { formatDuration } from '@planhub/shared';
import { clockOf, h } from '../dom.ts';
import type { DashboardState } from '../state.ts';
import { storeTroubleShown } from './header.ts';

const ago = (ms: number, now: number): string => `${formatDuration(Math.max(1000, now - ms))} ago`;

/**
 * What the page shows after its connection dropped, until it has caught up again: when it lost the connection and
 * how old the newest event it applied is, since statuses, presence and approvals shown may have changed since; and,
 * while connected, that the node cannot reach its store or that the store lost its data.
 */
export const staleView = (state: DashboardState, now = Date.now()): Node[] => {
  const store = storeTroubleShown(state);
  if (store?.kind === 'lost')
    return [
      h(
        'p',
        {},
        h('strong', {}, `The server’s store lost its data at ${clockOf(store.since)} (${ago(store.since, now)}).`),
        ' It was wiped or restarted empty: the plans this page showed no longer exist there, so they were cleared, ' +
          'and the events listed below the line in the feed happened before the loss. Trying again does not help: ' +
          'reload this page once the PlanHub server has been restarted.',
      ),
      // Checked every few seconds since: a page left open learns when reloading it would help.
      ...(store.backSince === undefined
        ? []
        : [h('p', {}, h('strong', {}, `The server is back (since ${clockOf(store.backSince)}): reload this page.`))]),
    ];
  if (store?.kind === 'full')
    return [
      h(
        'p',
        {},
        h('strong', {}, `The server’s store is full since ${clockOf(store.since)} (${ago(store.since, now)}).`),
        ' What is shown is current, but nothing new can be recorded (decisions included) until whoever runs PlanHub ' +
          'frees memory in its store; checked every few seconds.',
      ),
    ];
  if (store?.kind === 'events')
    return [
      h(
        'p',
        {},
        h(
          'strong',
          {},
          `The server’s event feed from its store is down since ${clockOf(store.since)} (${ago(store.since, now)}).`,
        ),
        ' Decisions and calls still work, but what other agents do reaches this page late, so what is shown may be ' +
          'old; checked every few seconds.',
      ),
    ];
  const lost = state.lostAt;
  if (store?.kind === 'unreachable')
    return [
      h(
        'p',
        {},
        h('strong', {}, `The server cannot reach its store since ${clockOf(store.since)} (${ago(store.since, now)}).`),
        ' Nothing new can be recorded or shown until it is back, so what is shown may be old; checked every few seconds.',
      ),
    ];
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
