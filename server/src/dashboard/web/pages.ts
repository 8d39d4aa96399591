import type { TaskEvent } from '@planhub/shared';
import type { Connection } from './connection.ts';
import { readPlanEvents, type PlanEvents } from './plan-events.ts';
import type { PlanPageData } from './views/plan-page.ts';

/**
 * The plan and step pages' data: the full plan (getPlanStatus has outputs and received outputs, the overview does
 * not) and the plan's events. Re-read when an event of that plan arrives; at most one read in flight per plan.
 * A re-read of the events only looks back to where the last one began; after a reconnection they are read afresh.
 */
export const createPageLoader = (conn: () => Connection, changed: () => void) => {
  const pages = new Map<string, PlanPageData>();
  const running = new Set<string>();
  const again = new Set<string>();
  const found = new Map<string, PlanEvents>();

  const load = (planId: string): void => {
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
        page.events = events.events;
        if (events.complete) delete page.searchStoppedAfter;
        else page.searchStoppedAfter = events.scanned;
        delete page.error;
      })
      .catch((err: unknown) => {
        page.error = err instanceof Error ? err.message : String(err);
      })
      .finally(() => {
        running.delete(planId);
        changed();
        if (again.delete(planId)) load(planId);
      });
  };

  return {
    get: (planId: string) => pages.get(planId),
    /** Loads the plan unless it is already there (a load that failed is tried again). */
    want(planId: string) {
      if (!pages.has(planId) || pages.get(planId)?.error !== undefined) load(planId);
    },
    /** An event arrived: the shown plan reads again; another plan's kept copy is dropped as stale. */
    onEvent(event: TaskEvent, shown: string | undefined) {
      const id = event.source_plan_id;
      if (!id || !pages.has(id)) return;
      if (id === shown) load(id);
      else {
        pages.delete(id);
        found.delete(id);
      }
    },
    reloadAll() {
      found.clear();
      for (const id of pages.keys()) load(id);
    },
  };
};
