import { openConnection, type Connection, type Identity } from './connection.ts';
import { h } from './dom.ts';
import { patchChildren } from './patch.ts';
import { createPageLoader } from './pages.ts';
import { otherWorkspaceOf, parseRoute } from './router.ts';
import { DashboardState } from './state.ts';
import { createAgentsView } from './views/agents.ts';
import { approvalsView, replaceApprovals } from './views/approvals.ts';
import { attentionView } from './views/attention.ts';
import { dependenciesView } from './views/dependencies.ts';
import { createFeedList, feedControls, feedFooter, replaceFeedFooter } from './views/feed.ts';
import { createGraphView } from './views/graph.ts';
import { headerView } from './views/header.ts';
import { planPage } from './views/plan-page.ts';
import { staleView } from './views/stale.ts';
import { stepPage } from './views/step-page.ts';
import { tabView } from './views/tab.ts';
import { tickRunning } from './views/running.ts';
import { createTimelineView } from './views/timeline.ts';
import { createSync } from './sync.ts';
import { createDecider } from './decide.ts';
import { createOlderLoader } from './older-events.ts';
import { workspacesView } from './views/workspaces.ts';
import { createDataLoss } from './data-loss.ts';
import { createStoreRestart } from './store-restart.ts';
import { noticeView } from './views/notice.ts';
import { createWorkspaceList } from './workspace-list.ts';
import { watchStoreHealth } from './store-health.ts';
import { createViewFocus } from './view-focus.ts';
import { elsewhereView } from './views/elsewhere.ts';
import { watchHiddenTab } from './hidden-tab.ts';
import { createPlanDetails } from './plan-details.ts';
import { section } from './views/section.ts';

/** The controller: one connection, one state, the route's sections re-rendered (at most once a frame) on change. */
export const startDashboard = (root: HTMLElement, identity: Identity): void => {
  const state = new DashboardState(identity);
  // Set once openConnection returns (at the end): the views are built first so the first events have somewhere to go.
  const link: { conn?: Connection } = {};
  const connection = () => {
    if (!link.conn) throw new Error('not connected yet');
    return link.conn;
  };

  const agents = section('agents', 'Agents and plans');
  const agentsView = createAgentsView(state, agents.body);
  const approvals = section('approvals', 'Waiting for a decision');
  const attention = section('attention', 'Needs attention');
  const deps = section('dependencies', 'Dependencies');
  const graph = createGraphView(state);
  const depList = h('details', { class: 'dep-list' }, h('summary', {}, 'As a list'));
  deps.body.append(graph.el, depList);
  const timeline = section('timeline', 'Timeline');
  const timelineChart = createTimelineView(state);
  timeline.body.append(timelineChart.el);
  const workspaces = section('workspaces', 'Workspaces');
  const elsewhere = section('elsewhere', 'Another workspace');
  const page = h('div', { class: 'page-body' });
  const feedList = createFeedList(state);
  const footer = h('div', { class: 'feed-footer' });
  const feedActions = {
    setFilter(group: string, agent: string) {
      state.filter = { group, agent };
      schedule();
    },
    loadOlder: () => void loadOlder(),
  };
  const feed = section('events', 'Events', feedControls(state, feedActions));
  feed.body.append(feedList.el, footer);
  const header = headerView(state);
  // The button that dismisses it goes with it: the focus goes to where the page starts.
  const notice = noticeView(state, () => {
    main.focus();
    schedule();
  });
  // Not a live region: its age ticks every second, and the connection pill already announces the drop. In the
  // sticky header, so it stays in sight wherever the reader has scrolled to.
  const stale = h('div', { id: 'stale', class: 'stale', hidden: true });
  header.el.append(stale);
  const tab = tabView(state, document, (planId) => pages.titleOf(planId));
  // The skip link's target on every view; focusable from script only, so Tab order is unchanged.
  const main = h('main', { class: 'layout', id: 'main', tabindex: -1 });
  root.replaceChildren(header.el, notice.el, main);
  const shownPlan = () => (state.route.view === 'plan' || state.route.view === 'step' ? state.route.planId : undefined);
  const pages = createPageLoader({
    conn: connection,
    changed: () => schedule(),
    lose: (m) => lose(m),
    shown: shownPlan,
  });
  const lose = createDataLoss(
    state,
    () => pages.lose(),
    () => schedule(),
  );
  const storeHealth = watchStoreHealth({ state, lose, changed: () => schedule() });

  const layoutFor = (): Node[] => {
    const route = state.route;
    switch (route.view) {
      case 'graph':
        return [h('div', { class: 'col wide' }, deps.el)];
      case 'timeline':
        return [h('div', { class: 'col wide' }, timeline.el)];
      case 'events':
        return [h('div', { class: 'col wide' }, feed.el)];
      case 'workspaces':
        return [h('div', { class: 'col wide' }, workspaces.el)];
      case 'plan':
      case 'step':
        return [h('div', { class: 'col wide' }, page)];
      default:
        return [
          h('div', { class: 'col main-col' }, elsewhere.el, approvals.el, attention.el, agents.el),
          h('div', { class: 'col side-col' }, deps.el, feed.el),
        ];
    }
  };

  // What tells whether the page is current: the pill, the stale banner, the tab's title and icon. No section reads
  // the connection's state, so while it changes alone (an age ticking, a reconnection attempt failing) they stay.
  const renderChrome = () => {
    header.update();
    tab.update();
    const staleNodes = staleView(state);
    stale.replaceChildren(...staleNodes);
    stale.hidden = staleNodes.length === 0;
    root.dataset.status = state.status;
  };
  let frame = 0;
  let shownView = '';
  const render = () => {
    frame = 0;
    const view = state.route.view;
    const showsFeed = view === 'overview' || view === 'events';
    // Layout is read before the first write below, so the browser lays the page out once this frame. A new view has
    // no place in the list to keep: the reader just left the one they were reading.
    const reading = showsFeed && view === shownView ? feedList.reading() : undefined;
    renderChrome();
    notice.update();
    if (view !== shownView) {
      shownView = view;
      main.className = `layout view-${view}`;
      main.replaceChildren(...layoutFor());
    }
    const route = state.route;
    if (view === 'overview') {
      elsewhere.el.hidden = state.elsewhere === undefined;
      patchChildren(elsewhere.body, elsewhereView(state, window.location.hash));
      agentsView.update();
      replaceApprovals(approvals.body, approvalsView(state, { decide, planDetails }), approvals.heading);
      patchChildren(attention.body, attentionView(state));
    }
    if (view === 'overview' || view === 'graph') {
      graph.update();
      patchChildren(depList, [h('summary', {}, 'As a list'), ...dependenciesView(state)]);
    }
    if (showsFeed) {
      const visible = state.visibleFeed();
      feedList.update(visible, reading);
      replaceFeedFooter(footer, feedFooter(state, visible, feedActions));
    }
    if (view === 'timeline') timelineChart.update();
    if (view === 'workspaces')
      patchChildren(workspaces.body, workspacesView(state, workspaceList.list.names, workspaceList.list.error));
    if (route.view === 'plan') patchChildren(page, planPage(state, pages.get(route.planId)));
    if (route.view === 'step') patchChildren(page, stepPage(state, pages.get(route.planId), route.stepId));
    if (headingWanted) focusHeading();
    viewFocus.apply();
    root.dataset.view = view;
    root.dataset.lastEvent = state.model.lastEventId ?? '';
  };
  const hiddenTab = watchHiddenTab(
    document,
    () => tab.update(),
    () => {
      // The frame asked for while hidden may still come once shown: this render is that frame's.
      cancelAnimationFrame(frame);
      render();
    },
  );
  const schedule = () => {
    hiddenTab.changed();
    frame ||= requestAnimationFrame(render);
  };
  // A part drawn alone in the next frame, unless a full render (which draws it too) is already coming.
  const between = (draw: () => void) => {
    let partFrame = 0;
    return () => {
      if (frame) return;
      partFrame ||= requestAnimationFrame(() => {
        partFrame = 0;
        draw();
      });
    };
  };
  const chromeFrame = between(renderChrome);
  const scheduleChrome = () => {
    hiddenTab.changed();
    chromeFrame();
  };
  const clocked = new Set(['timeline', 'plan', 'step']);
  const scheduleClock = between(() => {
    if (state.route.view === 'timeline') timelineChart.tick();
    if (state.route.view === 'plan' || state.route.view === 'step') tickRunning(page, Date.now());
  });
  // Highlights of unblocked steps end; otherwise only what reads the clock changes: the banner's age while
  // disconnected, the timeline's running bars, the running durations of a plan or step page. A full render every
  // second would rebuild every section for nothing, and drop what a reader selected, hovered or focused in them.
  setInterval(() => {
    if (state.fadeFlashes()) return schedule();
    if (state.lostAt !== undefined || state.storeTrouble) scheduleChrome();
    if (clocked.has(state.route.view)) scheduleClock();
  }, 1000);

  const fail = (err: unknown) => {
    const notice = { kind: 'error' as const, text: err instanceof Error ? err.message : String(err) };
    state.notice = notice;
    schedule();
    return notice;
  };

  // A plan or step page not loaded yet shows "Loading…" first, without its heading: the render that draws the heading
  // focuses it, unless the reader has put the focus somewhere since (the link they followed is gone, so until then
  // it is on the body).
  let headingWanted = false;
  const focusHeading = () => {
    const heading = document.getElementById('page-h');
    if (!heading) return;
    headingWanted = false;
    const active = document.activeElement;
    if (!active || active === document.body) heading.focus();
  };

  const viewFocus = createViewFocus(document);
  const onRoute = () => {
    const before = state.route;
    const elsewhereBefore = state.elsewhere;
    state.route = parseRoute(window.location.hash, identity.workspace);
    state.elsewhere = otherWorkspaceOf(window.location.hash, identity.workspace);
    const route = state.route;
    if ((route.view === 'plan' || route.view === 'step') && link.conn) pages.want(route.planId);
    if (route.view === 'workspaces' && link.conn) workspaceList.load();
    // What a decision answered belongs to the view it was taken on.
    // Answers and decisions not made are about the page the reader leaves; a connection error is not.
    if (JSON.stringify(before) !== JSON.stringify(route)) {
      if (state.notice?.kind === 'info') state.notice = undefined;
      state.undecided = undefined;
    }
    schedule();
    // A new page takes the focus to its heading, so keyboard and screen reader users start at its top.
    if (
      before.view !== route.view ||
      JSON.stringify(before) !== JSON.stringify(route) ||
      elsewhereBefore !== state.elsewhere
    ) {
      headingWanted = route.view === 'plan' || route.view === 'step';
      viewFocus.want(route, state.elsewhere !== undefined);
      requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('page-h')?.focus()));
    }
  };
  window.addEventListener('hashchange', onRoute);

  const restart = createStoreRestart({ state, forgetPlans: (ids) => pages.restarted(ids), changed: schedule });
  const checkStore = storeHealth.check;
  const sync = createSync({ state, connection, pages, schedule, fail, onRoute, lose, checkStore, restart });

  const loadOlder = createOlderLoader({ state, connection, schedule, fail, lose });
  const workspaceList = createWorkspaceList({ state, connection, lose, changed: schedule });
  const decide = createDecider({ state, connection, schedule, refresh: () => sync.refresh() });
  const planDetails = createPlanDetails({ state, connection, changed: schedule, lose });

  link.conn = openConnection(identity, {
    onStatus(status, detail) {
      if (status !== 'live') sync.dropped();
      // Only a page that was live has something that goes stale; the first connection shows "connecting…". A drop
      // before the page caught up keeps the first one's time: it has not been current since then.
      if (status !== 'live' && state.status === 'live') state.lostAt ??= Date.now();
      const changed = status !== state.status;
      state.status = status;
      state.statusDetail = detail;
      if (changed) schedule();
      else scheduleChrome();
    },
    onConnected: () => sync.connected(),
    onEvent: (event) => sync.onEvent(event),
  });
  state.route = parseRoute(window.location.hash, identity.workspace);
  state.elsewhere = otherWorkspaceOf(window.location.hash, identity.workspace);
  // The first onRoute (once caught up) sees no change from this route: a deep link or a reload of a plan or step
  // page asks for its heading here, as the docs promise, and a link to another workspace for what says so.
  headingWanted = state.route.view === 'plan' || state.route.view === 'step';
  if (headingWanted || state.elsewhere !== undefined) viewFocus.want(state.route, state.elsewhere !== undefined);
  schedule();
};
