import type { DashboardState } from './state.ts';

/**
 * The node's store was wiped or restarted empty (calls answer DATA_LOSS, /readyz store_data_lost). Final for this
 * page: the plans it shows no longer exist on the server, the events it holds cannot be followed by later ones (the
 * new log starts over), and retrying changes nothing until the nodes are restarted and the page reloaded.
 * So the overview's plans go (their Approve buttons and links would act on nothing), plan pages say so, and the
 * feed keeps what happened before as a record, cut where the loss was seen, without links (feed.ts).
 */
export const createDataLoss =
  (state: DashboardState, forgetPages: (message: string) => void, changed: () => void) =>
  (message: string): void => {
    if (state.storeTrouble?.kind === 'lost') return;
    state.storeTrouble = {
      kind: 'lost',
      since: Date.now(),
      message,
      ...(state.feed.length ? { lastEventId: state.feed.at(-1)!.event_id } : {}),
    };
    const snapshot = state.model.snapshot;
    if (snapshot) state.model.reset({ ...snapshot, agents: [] });
    forgetPages(message);
    // The catch-up's errors said DATA_LOSS again and again; the banner now says it once, with what to do.
    if (state.notice?.kind === 'error') state.notice = undefined;
    state.lostAt = undefined;
    changed();
  };
