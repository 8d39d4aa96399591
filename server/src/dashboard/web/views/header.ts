import { h } from '../dom.ts';
import { href, type Route } from '../router.ts';
import type { DashboardState } from '../state.ts';

const LABEL = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', refused: 'refused' } as const;

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
      const text =
        LABEL[state.status] + (state.status === 'refused' && state.statusDetail ? `: ${state.statusDetail}` : '');
      if (pill.textContent !== text) pill.textContent = text;
      const className = `pill ${state.status}`;
      if (pill.className !== className) pill.className = className;
      const title = state.statusDetail ?? '';
      if (pill.title !== title) pill.title = title;
      const view = state.route.view === 'plan' || state.route.view === 'step' ? 'overview' : state.route.view;
      for (const a of links)
        if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
        else a.removeAttribute('aria-current');
    },
  };
};
