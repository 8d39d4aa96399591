import type { TaskEvent } from '@planhub/shared';
import { REMOVED_PLAN_TEXT, isDataLoss, isNotFound, rateWait, slowDownText } from './call-errors.ts';
import type { Connection } from './connection.ts';
import { readPlanEvents, type PlanEvents } from './plan-events.ts';
import { RESTARTED_PLAN_TEXT } from './store-restart.ts';
import type { PlanPageData } from './views/plan-page.ts';

/**
 * Plan pages kept at most. Each kept page costs a read on the next reconnection if it were re-read; they are not
 * (only the shown one is), but a page open all day would otherwise hold every plan it ever showed.
 */
const MOST_PAGES = 20;

export interface PageLoaderDeps {
  conn: () => Connection;
  changed: () => void;
  /** A read answered DATA_LOSS: the store was wiped (data-loss.ts, which then calls `lose` here). */
  lose: (message: string) => void;
  /** The plan whose page is shown, if one is. */
  shown: () => string | undefined;
}

/**
 * The plan and step pages' data: the full plan (getPlanStatus has outputs and received outputs, the overview does
 * not) and the plan's events. Re-read when an event of that plan arrives; at most one read in flight per plan.
 * A re-read of the events only looks back to where the last one began; after a reconnection they are read afresh.
 */
export const createPageLoader = ({ conn, changed, lose, shown }: PageLoaderDeps) => {
  const pages = new Map<string, PlanPageData>();
  const running = new Set<string>();
  const again = new Set<string>();
  const found = new Map<string, PlanEvents>();
  /** Each plan's title as last read, kept after its page is forgotten or the store lost it: the tab names it so. */
  const titles = new Map<string, string>();
  /** Plans whose read was refused for the page's rate, waiting for the time the refusal named. */
  const retrying = new Map<string, ReturnType<typeof setTimeout>>();
  /** Set once the store lost its data: every read would answer DATA_LOSS. */
  let lostMessage: string | undefined;
  /** Plans of a history the node's store restarted without: none exists on the server, so none is read. */
  const restartedAway = new Set<string>();

  const forget = (planId: string) => {
    pages.delete(planId);
    found.delete(planId);
    clearTimeout(retrying.get(planId));
    retrying.delete(planId);
  };

  const load = (planId: string): void => {
    if (restartedAway.has(planId)) {
      pages.set(planId, { planId, events: [], error: RESTARTED_PLAN_TEXT });
      changed();
      return;
    }
    if (running.has(planId)) {
      again.add(planId);
      return;
    }
    running.add(planId);
    const page = pages.get(planId) ?? { planId, events: [] };
    pages.set(planId, page);
    Promise.all([conn().call('getPlanStatus', { plan_id: planId }), readPlanEvents(conn(), planId, found.get(planId))])
      .then(([plan, events]) => {
        found.set(planId, events);
        page.plan = plan;
        titles.set(planId, plan.title);
        page.events = events.events;
        if (events.complete) delete page.searchStoppedAfter;
        else page.searchStoppedAfter = events.scanned;
        delete page.error;
        delete page.waiting;
      })
      .catch(async (err: unknown) => {
        if (isDataLoss(err)) {
          lose(err.message);
          return;
        }
        if (isNotFound(err)) {
          // Retention removed it (or it never was): its events may still be in the log, which the page reads itself.
          page.error = REMOVED_PLAN_TEXT;
          // A copy read before it was removed would be shown instead of the notice.
          delete page.plan;
          delete page.waiting;
          const events = await readPlanEvents(conn(), planId, found.get(planId)).catch(() => undefined);
          if (events) {
            found.set(planId, events);
            page.events = events.events;
            if (events.complete) delete page.searchStoppedAfter;
            else page.searchStoppedAfter = events.scanned;
          }
          return;
        }
        const wait = rateWait(err);
        if (wait === undefined) {
          page.error = err instanceof Error ? err.message : String(err);
          delete page.waiting;
          return;
        }
        // The page's own budget ran out (plan pages opened in quick succession): it reads again once the server
        // said it may, as the catch-up does; a person could not tell that reopening the page was what it waited for.
        page.waiting = slowDownText(wait);
        delete page.error;
        clearTimeout(retrying.get(planId));
        retrying.set(
          planId,
          // Only for the plan still shown: a read of a page nobody looks at spends the budget that just ran out.
          // Left waiting, it is read when opened again (want).
          setTimeout(() => {
            retrying.delete(planId);
            if (pages.get(planId) === page && shown() === planId) load(planId);
          }, wait),
        );
      })
      .finally(() => {
        running.delete(planId);
        changed();
        if (again.delete(planId)) load(planId);
      });
  };

  return {
    get: (planId: string) => pages.get(planId),
    titleOf: (planId: string) => titles.get(planId),
    /** Loads the plan unless it is already there (a load that failed is tried again) or waits for its retry. */
    want(planId: string) {
      const page = pages.get(planId);
      if (page) {
        // Most recently wanted last, so the oldest is the one dropped when there are too many.
        pages.delete(planId);
        pages.set(planId, page);
      }
      if (lostMessage !== undefined) {
        pages.set(planId, { planId, events: [], error: lostMessage });
        return;
      }
      const failed = page?.error !== undefined || page?.waiting !== undefined;
      if (!page || (failed && !retrying.has(planId))) load(planId);
      for (const id of pages.keys()) {
        if (pages.size <= MOST_PAGES) break;
        if (id !== planId) forget(id);
      }
    },
    /** An event arrived: the shown plan reads again; another plan's kept copy is dropped as stale. */
    onEvent(event: TaskEvent, shown: string | undefined) {
      const id = event.source_plan_id;
      if (!id || !pages.has(id)) return;
      if (id === shown) load(id);
      else forget(id);
    },
    /**
     * After a reconnection only the shown plan reads again; the others are forgotten and read when opened (want).
     * Re-reading every plan visited that session cost 3 calls each at once, and the page's budget refused them.
     */
    reloadShown(shown: string | undefined) {
      found.clear();
      for (const id of [...pages.keys()]) if (id !== shown) forget(id);
      if (shown !== undefined && lostMessage === undefined) load(shown);
    },
    /**
     * The node's store restarted without its history: these plans are gone, and so is every plan a kept page was read
     * of; their pages say so, and are not read again.
     */
    restarted(planIds: readonly string[]) {
      for (const id of [...planIds, ...pages.keys()]) restartedAway.add(id);
      for (const id of [...pages.keys()]) {
        forget(id);
        pages.set(id, { planId: id, events: [], error: RESTARTED_PLAN_TEXT });
      }
    },
    /** The store lost its data: each kept page says so instead of showing a plan that no longer exists. */
    lose() {
      lostMessage = 'This plan no longer exists: the server’s store lost its data (see the banner at the top).';
      for (const id of [...pages.keys()]) {
        forget(id);
        pages.set(id, { planId: id, events: [], error: lostMessage });
      }
    },
  };
};
