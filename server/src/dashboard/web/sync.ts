import type { TaskEvent, ToolArgs } from '@planhub/shared';
import { EVENT_TYPES, PlanHubError, coalesceRetrying, retryWait } from '@planhub/shared';
import { isDataLoss, rateWait } from './call-errors.ts';
import type { Connection } from './connection.ts';
import type { createPageLoader } from './pages.ts';
import type { DashboardState } from './state.ts';
import { restartedSince, unmarked } from './store-restart.ts';

const HISTORY = 100;
/** Rate refusals one step of a catch-up waits out before the catch-up starts over. */
const PATIENCE = 3;

/** Thrown by a catch-up that a newer connection (or a drop) made obsolete: it stops without a word. */
class Superseded extends Error {}

export interface SyncDeps {
  state: DashboardState;
  connection: () => Connection;
  pages: ReturnType<typeof createPageLoader>;
  schedule: () => void;
  /** Shows an error; returns the notice it set, so whoever set it can clear it. */
  fail: (err: unknown) => DashboardState['notice'];
  /** Applies the route once caught up (a plan page loads its plan). */
  onRoute: () => void;
  /** The store lost its data (a call answered DATA_LOSS): final, see data-loss.ts. */
  lose: (message: string) => void;
  /** Asks the node at once whether it reaches its store (a call failed, or a connection came). */
  checkStore: () => void;
  /** The node's store restarted without its history: the page starts on the new one (store-restart.ts). */
  restart: () => void;
}

/**
 * Keeps the page's state in step with the workspace: the catch-up on each connection (overview, history,
 * subscription), the events pushed afterwards, and the overview re-read they ask for; each retried while the
 * connection stays up, since nothing else would ask again.
 */
export const createSync = ({
  state,
  connection,
  pages,
  schedule,
  fail,
  onRoute,
  lose,
  checkStore,
  restart,
}: SyncDeps) => {
  const lost = () => state.storeTrouble?.kind === 'lost';
  // Each connect and each drop starts a new generation: a catch-up retry scheduled in an earlier one is dropped,
  // and a catch-up still running from an earlier one stops at its next step.
  let generation = 0;
  /** The generation in which a subscription was made (answered), or may have been (sent, its answer lost). */
  let subscribedIn = -1;
  let sentIn = -1;
  const current = (connectedIn: number) => {
    if (connectedIn !== generation) throw new Superseded();
  };

  // At most one overview read in flight; events that arrive meanwhile cause exactly one more.
  let rereadNotice: DashboardState['notice'];
  const reread = coalesceRetrying(
    async () => {
      state.model.reset(await connection().call('getWorkspace', {}));
      if (rereadNotice !== undefined && state.notice === rereadNotice) state.notice = undefined;
      schedule();
    },
    (err) => {
      if (isDataLoss(err)) return lose(err.message);
      rereadNotice = fail(err);
      checkStore();
    },
    () => state.status === 'live' && !lost(),
  );
  const refresh = reread.run;

  const onEvent = (pushed: TaskEvent) => {
    const { event, restartedAfter } = unmarked(pushed);
    // The node restarted this connection's stream from its log's start: the page's cursor was past the end of a log
    // that started over. Seen by the catch-up first as a rule (restartedSince); this is for what it could not see.
    if (restartedAfter !== undefined && state.resumeFrom !== undefined) {
      restart();
      refresh();
    }
    const shown = state.addToFeed(event);
    // Applied even when the feed already shows it: the first load's history can hold events newer than the
    // overview read before it, which the subscription then replays. The model ignores what it already applied.
    if (state.model.apply(event)) refresh();
    const route = state.route;
    if (shown) pages.onEvent(event, route.view === 'plan' || route.view === 'step' ? route.planId : undefined);
    schedule();
  };

  /**
   * A step after the overview, tried again once the caller's rate window has passed when it is refused for it. A
   * large workspace's overview costs a whole window (the node charges an answer by its bytes): starting the catch-up
   * over would read the overview again, spend the next window the same way, and never get to the subscription.
   */
  const patiently = async <T>(connectedIn: number, step: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (err) {
        const wait = rateWait(err);
        if (wait === undefined || attempt >= PATIENCE) throw err;
        await new Promise((resolve) => setTimeout(resolve, wait));
        current(connectedIn);
      }
    }
  };

  const onConnected = async (connectedIn: number) => {
    const first = state.model.snapshot === undefined;
    const snapshot = await connection().call('getWorkspace', {});
    current(connectedIn);
    const readEvents = (args: ToolArgs<'getTaskEvents'>) =>
      patiently(connectedIn, () => connection().call('getTaskEvents', args));
    // Asked before subscribing, so the subscription resumes in the log the node has now, not after the old one's end.
    const restarted = !first && (await restartedSince(state, snapshot, readEvents));
    current(connectedIn);
    if (restarted) {
      restart();
      state.historyOwed = true;
    }
    const owed = state.historyOwed;
    // A first load does without its history if the read fails; a break's is owed, so its failure fails the catch-up,
    // which tries again.
    const history =
      first || owed
        ? await patiently(connectedIn, () =>
            connection().call('getTaskEvents', { limit: HISTORY, event_types: [...EVENT_TYPES] }),
          ).catch((err: unknown) => {
            if (owed) throw err;
            return undefined;
          })
        : undefined;
    current(connectedIn);
    if (history) state.historyOwed = false;
    for (const e of history?.events ?? []) state.addToFeed(e);
    state.model.reset(snapshot);
    // History read after the overview may hold newer events; the subscription starts after the feed's last.
    let newer = false;
    for (const e of history?.events ?? []) newer = state.model.apply(e) || newer;
    if (newer) refresh();
    // A connection's stream starts with its first subscription and cannot go back: clearing the subscriptions on a
    // stream that may have started (a subscribe whose answer was lost) would drop what arrives until the next one.
    if (subscribedIn !== connectedIn) {
      if (sentIn !== connectedIn) {
        // Stored subscriptions outlive a connection: start from a clean slate, then resume after the last event seen.
        await patiently(connectedIn, () => connection().call('unsubscribe', { all: true })).catch(() => undefined);
        current(connectedIn);
      }
      sentIn = connectedIn;
      await patiently(connectedIn, () =>
        connection().call('subscribeToTasks', {
          agent_id: '*',
          event_types: [...EVENT_TYPES],
          after_event: state.resumeFrom ?? snapshot.last_event_id ?? '0-0',
        }),
      ).catch((err: unknown) => {
        // A refusal applied nothing (admission comes first); any other failure may have started the stream.
        if (err instanceof PlanHubError && connectedIn === generation) sentIn = -1;
        throw err;
      });
      current(connectedIn);
      subscribedIn = connectedIn;
    }
    if (state.notice?.kind === 'error') state.notice = undefined;
    state.lostAt = undefined;
    const route = state.route;
    pages.reloadShown(route.view === 'plan' || route.view === 'step' ? route.planId : undefined);
    onRoute();
  };

  /**
   * Catches up on a new connection, and tries again while it stays up if a call fails (a refused or timed-out
   * call would otherwise leave a page that is open for days showing a live connection and receiving nothing).
   */
  const catchUp = (connectedIn: number, attempt = 0) => {
    // After a loss every call answers DATA_LOSS until the nodes restart: retrying every 5 s only repeated it.
    if (lost()) return;
    onConnected(connectedIn).catch((err: unknown) => {
      if (err instanceof Superseded || connectedIn !== generation) return;
      if (isDataLoss(err)) return lose(err.message);
      fail(err);
      checkStore();
      setTimeout(
        () => {
          if (connectedIn === generation) catchUp(connectedIn, attempt + 1);
        },
        retryWait(err, attempt),
      );
    });
  };

  return {
    onEvent,
    refresh,
    /** The connection is up (again): catch up on it. */
    connected: () => {
      checkStore();
      catchUp((generation += 1));
    },
    /** The connection dropped or is being retried: what was under way for it stops. */
    dropped: () => void (generation += 1),
  };
};
