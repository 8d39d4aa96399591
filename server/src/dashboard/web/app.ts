import type { TaskEvent } from '@planhub/shared';
import { EVENT_TYPES, PlanHubError, coalesce, neutralize } from '@planhub/shared';
import { openConnection, type Connection, type Identity } from './connection.ts';
import { h, replaceKeepingFocus } from './dom.ts';
import { createPageLoader } from './pages.ts';
import { parseRoute } from './router.ts';
import { DashboardState, groupTypes } from './state.ts';
import { agentsView } from './views/agents.ts';
import { approvalsView } from './views/approvals.ts';
import { dependenciesView } from './views/dependencies.ts';
import { feedControls, feedFooter, feedView } from './views/feed.ts';
import { createGraphView } from './views/graph.ts';
import { headerView } from './views/header.ts';
import { planPage } from './views/plan-page.ts';
import { stepPage } from './views/step-page.ts';
import { timelineView } from './views/timeline.ts';
import { workspacesView } from './views/workspaces.ts';

const HISTORY = 100;
const OLDER_PAGE = 50;
/** Waits between attempts to catch up on a connection, growing; a refusal's retry_after_ms waits longer. */
const CATCH_UP_BACKOFF_MS = [500, 1000, 2000, 5000];

/** Thrown by a catch-up that a newer connection (or a drop) made obsolete: it stops without a word. */
class Superseded extends Error {}

const retryAfterMs = (details: unknown): number => {
  const ms = (details as { retry_after_ms?: unknown } | undefined)?.retry_after_ms;
  return typeof ms === 'number' && Number.isFinite(ms) ? ms : 0;
};

const section = (id: string, title: string, ...extra: Node[]) => {
  const body = h('div', { class: 'section-body', id: `${id}-body` });
  return {
    body,
    el: h(
      'section',
      { id, class: `panel ${id}`, 'aria-labelledby': `${id}-h` },
      h('h2', { id: `${id}-h`, tabindex: -1 }, title),
      ...extra,
      body,
    ),
  };
};

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
  const approvals = section('approvals', 'Waiting for a decision');
  const deps = section('dependencies', 'Dependencies');
  const graph = createGraphView(state);
  const depList = h('details', { class: 'dep-list' }, h('summary', {}, 'As a list'));
  deps.body.append(graph.el, depList);
  const timeline = section('timeline', 'Timeline');
  const workspaces = section('workspaces', 'Workspaces');
  const page = h('div', { class: 'page-body' });
  const feedList = h('ol', { class: 'feed', 'aria-label': 'Events, newest first' });
  const footer = h('div', { class: 'feed-footer' });
  const feedActions = {
    setFilter(group: string, agent: string) {
      state.filter = { group, agent };
      schedule();
    },
    loadOlder: () => void loadOlder(),
  };
  const feed = section('events', 'Events', feedControls(state, feedActions));
  feed.body.append(feedList, footer);
  const header = headerView(state);
  const notice = h('div', { id: 'notice', role: 'alert', class: 'notice' });
  const main = h('main', { class: 'layout', id: 'main' });
  root.replaceChildren(header.el, notice, main);
  let workspaceNames: string[] | undefined;
  let workspaceError: string | undefined;
  const pages = createPageLoader(connection, () => schedule());

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
          h('div', { class: 'col main-col' }, approvals.el, agents.el),
          h('div', { class: 'col side-col' }, deps.el, feed.el),
        ];
    }
  };

  let frame = 0;
  let shownView = '';
  const render = () => {
    frame = 0;
    header.update();
    notice.textContent = neutralize(state.notice?.text ?? '');
    notice.className = `notice ${state.notice?.kind ?? ''}`;
    const view = state.route.view;
    if (view !== shownView) {
      shownView = view;
      main.className = `layout view-${view}`;
      main.replaceChildren(...layoutFor());
    }
    const route = state.route;
    if (view === 'overview') {
      replaceKeepingFocus(agents.body, agentsView(state));
      replaceKeepingFocus(approvals.body, approvalsView(state, { decide }));
    }
    if (view === 'overview' || view === 'graph') {
      graph.update();
      replaceKeepingFocus(depList, [h('summary', {}, 'As a list'), ...dependenciesView(state)]);
    }
    if (view === 'overview' || view === 'events') {
      feedList.replaceChildren(...feedView(state));
      replaceKeepingFocus(footer, feedFooter(state, feedActions));
    }
    if (view === 'timeline') replaceKeepingFocus(timeline.body, timelineView(state));
    if (view === 'workspaces')
      replaceKeepingFocus(workspaces.body, workspacesView(state, workspaceNames, workspaceError));
    if (route.view === 'plan') replaceKeepingFocus(page, planPage(state, pages.get(route.planId)));
    if (route.view === 'step') replaceKeepingFocus(page, stepPage(state, pages.get(route.planId), route.stepId));
    root.dataset.status = state.status;
    root.dataset.view = view;
    root.dataset.lastEvent = state.model.lastEventId ?? '';
  };
  const schedule = () => {
    frame ||= requestAnimationFrame(render);
  };
  // Highlights of unblocked steps fade on their own; running bars grow.
  setInterval(() => {
    if (state.flashes.size > 0 || state.route.view === 'timeline') schedule();
  }, 1000);

  const fail = (err: unknown) => {
    const notice = { kind: 'error' as const, text: err instanceof Error ? err.message : String(err) };
    state.notice = notice;
    schedule();
    return notice;
  };

  /** How long to wait before the `attempt`-th retry of a failed read: growing, never sooner than a refusal asks. */
  const retryWait = (err: unknown, attempt: number) =>
    Math.max(
      err instanceof PlanHubError ? retryAfterMs(err.details) : 0,
      CATCH_UP_BACKOFF_MS[Math.min(attempt, CATCH_UP_BACKOFF_MS.length - 1)]!,
    );

  // Each connect and each drop starts a new generation: a catch-up retry scheduled in an earlier one is dropped,
  // and a catch-up still running from an earlier one stops at its next step.
  let generation = 0;

  const onRoute = () => {
    const before = state.route;
    state.route = parseRoute(window.location.hash, identity.workspace);
    const route = state.route;
    if ((route.view === 'plan' || route.view === 'step') && link.conn) pages.want(route.planId);
    if (route.view === 'workspaces' && link.conn)
      connection()
        .call('listWorkspaces', {})
        .then((r) => (workspaceNames = r.workspaces))
        .catch((err: unknown) => (workspaceError = err instanceof Error ? err.message : String(err)))
        .finally(schedule);
    schedule();
    // A new page takes the focus to its heading, so keyboard and screen reader users start at its top.
    if (before.view !== route.view || JSON.stringify(before) !== JSON.stringify(route))
      requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('page-h')?.focus()));
  };
  window.addEventListener('hashchange', onRoute);

  async function loadOlder() {
    const key = state.filterKey;
    if (state.older?.key !== key)
      state.older = { key, events: [], nextBefore: state.feed[0]?.event_id ?? null, scanned: 0, loading: false };
    const older = state.older;
    if (older.loading || (older.nextBefore === null && older.events.length + older.scanned > 0)) return;
    older.loading = true;
    schedule();
    try {
      const text = state.filter.agent.trim();
      const page = await connection().call('getTaskEvents', {
        limit: OLDER_PAGE,
        event_types: groupTypes(state.filter.group),
        ...(older.nextBefore ? { before_event: older.nextBefore } : {}),
        ...(text ? { text } : {}),
      });
      older.events.unshift(...page.events);
      older.scanned += page.scanned ?? 0;
      older.nextBefore = page.next_before ?? null;
    } catch (err) {
      fail(err);
    } finally {
      older.loading = false;
      schedule();
    }
  }

  // At most one overview read in flight; events that arrive meanwhile cause exactly one more. A failed read is
  // tried again while the connection stays up: the events that asked for it will not ask again.
  let refreshFailures = 0;
  let refreshNotice: DashboardState['notice'];
  const refresh: () => void = coalesce(
    async () => {
      state.model.reset(await connection().call('getWorkspace', {}));
      refreshFailures = 0;
      if (refreshNotice !== undefined && state.notice === refreshNotice) state.notice = undefined;
      schedule();
    },
    (err) => {
      refreshNotice = fail(err);
      const connectedIn = generation;
      setTimeout(
        () => {
          if (connectedIn === generation) refresh();
        },
        retryWait(err, refreshFailures++),
      );
    },
  );

  const onEvent = (event: TaskEvent) => {
    const shown = state.addToFeed(event);
    // Applied even when the feed already shows it: the first load's history can hold events newer than the
    // overview read before it, which the subscription then replays. The model ignores what it already applied.
    if (state.model.apply(event)) refresh();
    const route = state.route;
    if (shown) pages.onEvent(event, route.view === 'plan' || route.view === 'step' ? route.planId : undefined);
    schedule();
  };

  /** The generation in which a subscription was made (answered), or may have been (sent, its answer lost). */
  let subscribedIn = -1;
  let sentIn = -1;
  const current = (connectedIn: number) => {
    if (connectedIn !== generation) throw new Superseded();
  };

  const onConnected = async (connectedIn: number) => {
    const first = state.model.snapshot === undefined;
    const snapshot = await connection().call('getWorkspace', {});
    current(connectedIn);
    const history = first
      ? await connection()
          .call('getTaskEvents', { limit: HISTORY, event_types: [...EVENT_TYPES] })
          .catch(() => undefined)
      : undefined;
    current(connectedIn);
    for (const e of history?.events ?? []) state.addToFeed(e);
    state.model.reset(snapshot);
    // History read after the overview may hold newer events; the subscription starts after the feed's last.
    let reread = false;
    for (const e of history?.events ?? []) reread = state.model.apply(e) || reread;
    if (reread) refresh();
    // A connection's stream starts with its first subscription and cannot go back: clearing the subscriptions on a
    // stream that may have started (a subscribe whose answer was lost) would drop what arrives until the next one.
    if (subscribedIn !== connectedIn) {
      if (sentIn !== connectedIn) {
        // Stored subscriptions outlive a connection: start from a clean slate, then resume after the last event seen.
        await connection()
          .call('unsubscribe', { all: true })
          .catch(() => undefined);
        current(connectedIn);
      }
      sentIn = connectedIn;
      await connection()
        .call('subscribeToTasks', {
          agent_id: '*',
          event_types: [...EVENT_TYPES],
          after_event: state.feed.at(-1)?.event_id ?? state.model.lastEventId ?? snapshot.last_event_id ?? '0-0',
        })
        .catch((err: unknown) => {
          // A refusal applied nothing (admission comes first); any other failure may have started the stream.
          if (err instanceof PlanHubError && connectedIn === generation) sentIn = -1;
          throw err;
        });
      current(connectedIn);
      subscribedIn = connectedIn;
    }
    if (state.notice?.kind === 'error') state.notice = undefined;
    pages.reloadAll();
    onRoute();
  };

  /**
   * Catches up on a new connection, and tries again while it stays up if a call fails (a refused or timed-out
   * call would otherwise leave a page that is open for days showing a live connection and receiving nothing).
   */
  const catchUp = (connectedIn: number, attempt = 0) => {
    onConnected(connectedIn).catch((err: unknown) => {
      if (err instanceof Superseded || connectedIn !== generation) return;
      fail(err);
      setTimeout(
        () => {
          if (connectedIn === generation) catchUp(connectedIn, attempt + 1);
        },
        retryWait(err, attempt),
      );
    });
  };

  function decide(planId: string, approve: boolean, reason: string, modification: boolean) {
    state.deciding.add(planId);
    schedule();
    const args = { plan_id: planId, ...(modification ? { modification: true } : {}) };
    const call = approve
      ? connection().call('plan_approve', args)
      : connection().call('plan_reject', { ...args, ...(reason ? { reason } : {}) });
    call
      .then((answer) => {
        state.notice = { kind: 'info', text: answer.message };
      })
      .catch((err: unknown) => fail(err instanceof PlanHubError ? new Error(`${err.code}: ${err.message}`) : err))
      .finally(() => {
        state.deciding.delete(planId);
        refresh();
      });
  }

  link.conn = openConnection(identity, {
    onStatus(status, detail) {
      if (status !== 'live') generation += 1;
      state.status = status;
      state.statusDetail = detail;
      schedule();
    },
    onConnected: () => catchUp((generation += 1)),
    onEvent,
  });
  document.title = `PlanHub · ${identity.workspace}`;
  state.route = parseRoute(window.location.hash, identity.workspace);
  schedule();
};
