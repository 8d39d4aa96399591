import type { TaskEvent } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import { clockOf, h } from '../dom.ts';
import type { DashboardState, FeedBreak } from '../state.ts';

/** A line across the feed where its history broke: what is under it happened in a log the server no longer has. */
interface Cut {
  /** True for the events that happened before it. */
  before: (e: TaskEvent) => boolean;
  mark: () => HTMLElement;
  /** Drawn under the list when no event before it is shown (the loss, which is final, always says so). */
  always: boolean;
}

/** One element per break, kept across renders like the events' own (a reader's place in the list holds). */
const breakMarks = new WeakMap<FeedBreak, HTMLElement>();

const breakMark = (cut: FeedBreak): HTMLElement => {
  let mark = breakMarks.get(cut);
  if (!mark) {
    mark = h(
      'li',
      { class: 'restart-mark', id: `feed-restart-${cut.history}`, 'data-history': String(cut.history) },
      `${clockOf(cut.since)}: the server’s store restarted without its earlier history. The events below happened ` +
        'before it, and their plans no longer exist. The events above happened since.',
    );
    breakMarks.set(cut, mark);
  }
  return mark;
};

/** The feed's cuts, newest first: the store's loss (final, after everything), then each restart, the latest first. */
const cutsOf = (state: DashboardState): Cut[] => {
  const cuts: Cut[] = [];
  const loss = state.storeTrouble?.kind === 'lost' ? state.storeTrouble : undefined;
  if (loss)
    cuts.push({
      before: (e) =>
        state.beforeBreak(e) || loss.lastEventId === undefined || compareEventIds(e.event_id, loss.lastEventId) <= 0,
      mark: () =>
        h(
          'li',
          { class: 'loss-mark', id: 'feed-loss' },
          `${clockOf(loss.since)}: the server’s store lost its data. The events below happened before; their plans no longer exist.`,
        ),
      always: true,
    });
  for (const cut of [...state.breaks].reverse())
    cuts.push({ before: (e) => state.historyOf(e) < cut.history, mark: () => breakMark(cut), always: false });
  return cuts;
};

/**
 * The feed's items (`nodes`, one per event of `events`, newest first) with each cut's line above the newest event
 * before it. A break none of whose earlier events is shown (filtered out, or past the shown count) draws nothing.
 */
export const withCuts = (state: DashboardState, events: readonly TaskEvent[], nodes: readonly Node[]): Node[] => {
  const cuts = cutsOf(state);
  const out: Node[] = [];
  let next = 0;
  events.forEach((e, i) => {
    // An earlier cut's events are all before each later one's too: the lines come in order.
    while (next < cuts.length && cuts[next]!.before(e)) out.push(cuts[next++]!.mark());
    out.push(nodes[i]!);
  });
  for (; next < cuts.length; next++) if (cuts[next]!.always) out.push(cuts[next]!.mark());
  return out;
};
