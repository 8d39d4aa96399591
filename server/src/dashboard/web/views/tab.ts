import { neutralize } from '@planhub/shared';
import type { DashboardState } from '../state.ts';
import { storeTroubleShown } from './header.ts';

const STORE_TITLE = {
  unreachable: 'Store unreachable',
  full: 'Store full',
  events: 'Events delayed',
  lost: 'Data lost',
} as const;

/** A plan's title as the page last read it on its own page, for a plan the overview does not list. */
export type PageTitleOf = (planId: string) => string | undefined;

// The overview lists only current plans: a deep link to an old finished one, or any plan after a data loss, is
// named by what its page read, and by its id only when that read has not come.
const planTitle = (state: DashboardState, planId: string, pageTitle: PageTitleOf): string =>
  state.model.snapshot?.agents.flatMap((a) => a.plans).find((p) => p.plan_id === planId)?.title ??
  pageTitle(planId) ??
  planId;

/**
 * The view's name, so a person with several dashboard tabs (or the history list) can tell them apart. The overview
 * has none: it is the dashboard itself.
 */
const viewTitle = (state: DashboardState, pageTitle: PageTitleOf): string => {
  const route = state.route;
  switch (route.view) {
    case 'overview':
      return state.elsewhere === undefined ? '' : `Not “${state.elsewhere}”`;
    case 'graph':
      return 'Graph';
    case 'timeline':
      return 'Timeline';
    case 'events':
      return 'Events';
    case 'workspaces':
      return 'Workspaces';
    case 'plan':
      return `Plan “${planTitle(state, route.planId, pageTitle)}”`;
    case 'step':
      return `${route.stepId} of “${planTitle(state, route.planId, pageTitle)}”`;
  }
};

/** Plan approvals and step modifications waiting for a person, across the workspace. */
const decisionsWaiting = (state: DashboardState): number =>
  (state.model.snapshot?.agents ?? []).reduce(
    (n, a) => n + a.pending_approvals.length + a.pending_modifications.length,
    0,
  );

/**
 * The tab's title and icon: a dashboard spends most of the day in a background tab, where these are all a person
 * sees, so they carry what needs that person (decisions waiting) and whether what the page shows is current.
 */
export const tabView = (state: DashboardState, doc: Document, pageTitle: PageTitleOf = () => undefined) => {
  let shownIcon: string | undefined;
  return {
    update() {
      const waiting = decisionsWaiting(state);
      // "connecting" is the first load, which shows nothing yet; the others mean what is shown may be old.
      const store = storeTroubleShown(state);
      const offline = state.status === 'reconnecting' || state.status === 'refused';
      const trouble = store
        ? STORE_TITLE[store.kind]
        : offline
          ? state.status === 'refused'
            ? 'Refused'
            : 'Disconnected'
          : '';
      const view = viewTitle(state, pageTitle);
      // Titles and workspace names are anyone's text: a bidi override in one would reorder the rest of the tab's
      // title ("Pay \u202Eevorppa\u202C" reads "approve"), so it is shown as the page shows it everywhere (dom.ts).
      const title = neutralize(
        [
          waiting ? `(${waiting}) ` : '',
          trouble ? `${trouble} · ` : '',
          view ? `${view} · ` : '',
          `PlanHub · ${state.identity.workspace}`,
        ].join(''),
      );
      if (doc.title !== title) doc.title = title;
      // A dot on the icon, amber for a decision waiting, red while disconnected or the store is out, crossed out
      // once the store lost its data (final): visible when the title is cut off.
      const iconState = store ? `store-${store.kind}` : offline ? 'disconnected' : waiting ? 'waiting' : 'quiet';
      const dot = store || offline ? '#b42323' : waiting ? '#e09b00' : '';
      if (iconState === shownIcon) return;
      shownIcon = iconState;
      const svg =
        `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2330"/>` +
        `<path d="M9 23V9h8a5 5 0 0 1 0 10h-8" fill="none" stroke="#fff" stroke-width="3"/>` +
        (dot ? `<circle cx="25" cy="25" r="7" fill="${dot}" stroke="#fff" stroke-width="2"/>` : '') +
        (store?.kind === 'lost' ? '<path d="M21 21l8 8M29 21l-8 8" stroke="#fff" stroke-width="2"/>' : '') +
        '</svg>';
      const link =
        doc.querySelector<HTMLLinkElement>('link[rel="icon"]') ??
        doc.head.appendChild(Object.assign(doc.createElement('link'), { rel: 'icon' }));
      link.href = `data:image/svg+xml,${encodeURIComponent(svg)}`;
      link.dataset.state = iconState;
    },
  };
};
