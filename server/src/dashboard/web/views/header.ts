import { h } from '../dom.ts';
import { href, type Route } from '../router.ts';
import type { DashboardState } from '../state.ts';

const LABEL = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', refused: 'refused' } as const;

const STORE_LABEL = {
  unreachable: 'store unreachable',
  full: 'store full',
  events: 'events delayed',
  lost: 'data lost',
} as const;

/**
 * The store's trouble the page shows: a loss always (it is final), an unreachable or full store only while the socket is up
 * (while it is down, the page cannot tell, and "reconnecting" says enough).
 */
export const storeTroubleShown = (state: DashboardState) => {
  const trouble = state.storeTrouble;
  return trouble && (trouble.kind === 'lost' || state.status === 'live') ? trouble : undefined;
};

const TABS: { label: string; route: Route }[] = [
  { label: 'Overview', route: { view: 'overview' } },
  { label: 'Graph', route: { view: 'graph' } },
  { label: 'Timeline', route: { view: 'timeline' } },
  { label: 'Events', route: { view: 'events' } },
  { label: 'Workspaces', route: { view: 'workspaces' } },
];

/** The top bar, sticky so the connection state stays in sight: workspace, the views, who the page acts as. */
export const headerView = (state: DashboardState) => {
  const { identity } = state;
  const pill = h('span', { id: 'connection', class: 'pill', role: 'status', 'aria-live': 'polite' });
  const links = TABS.map((t) =>
    h('a', { href: href(identity.workspace, t.route), 'data-view': t.route.view }, t.label),
  );
  const el = h(
    'header',
    { class: 'top' },
    h('div', { class: 'bar' }, h('h1', {}, 'PlanHub'), h('span', { class: 'ws' }, identity.workspace), pill),
    h('nav', { 'aria-label': 'Views' }, ...links),
    h('span', { class: 'who' }, `${identity.agentId} · ${identity.role}`),
  );
  return {
    el,
    update() {
      // A status region announces every write of its text, and reconnection attempts call this again and again
      // with the same state: only a change is written.
      // A socket can be up while the node cannot reach its store: "live" then promised what the page could not do.
      const store = storeTroubleShown(state);
      const text = store
        ? STORE_LABEL[store.kind]
        : LABEL[state.status] + (state.status === 'refused' && state.statusDetail ? `: ${state.statusDetail}` : '');
      if (pill.textContent !== text) pill.textContent = text;
      const className = `pill ${store ? `store-${store.kind}` : state.status}`;
      if (pill.className !== className) pill.className = className;
      const title = store?.message ?? state.statusDetail ?? '';
      if (pill.title !== title) pill.title = title;
      const view = state.route.view === 'plan' || state.route.view === 'step' ? 'overview' : state.route.view;
      for (const a of links)
        if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
        else a.removeAttribute('aria-current');
    },
  };
};
