import type { EventEnvelope } from '@planhub/shared';
import { EVENT_TYPES, PlanHubError, coalesce } from '@planhub/shared';
import { openConnection, type Connection, type Identity } from './connection.ts';
import { h, replaceKeepingFocus } from './dom.ts';
import { DashboardState } from './state.ts';
import { agentsView } from './views/agents.ts';
import { approvalsView } from './views/approvals.ts';
import { dependenciesView } from './views/dependencies.ts';
import { feedControls, feedView } from './views/feed.ts';
import { headerView } from './views/header.ts';

const HISTORY = 100;

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

/** The controller: one connection, one state, sections re-rendered (at most once a frame) when the state changes. */
export const startDashboard = (root: HTMLElement, identity: Identity): void => {
  const state = new DashboardState(identity);

  const agents = section('agents', 'Agents and plans');
  const approvals = section('approvals', 'Waiting for a decision');
  const deps = section('dependencies', 'Dependencies');
  const feedList = h('ol', { class: 'feed', 'aria-label': 'Events, newest first' });
  const feed = section(
    'events',
    'Live events',
    feedControls(state, {
      setFilter(group, agent) {
        state.filter = { group, agent };
        schedule();
      },
    }),
  );
  feed.body.append(feedList);
  const header = headerView(state);
  const notice = h('div', { id: 'notice', role: 'alert', class: 'notice' });
  root.replaceChildren(
    header.el,
    notice,
    h(
      'main',
      { class: 'layout' },
      h('div', { class: 'col main-col' }, agents.el),
      h('div', { class: 'col side-col' }, approvals.el, deps.el, feed.el),
    ),
  );

  let frame = 0;
  const render = () => {
    frame = 0;
    header.update();
    notice.textContent = state.notice?.text ?? '';
    notice.className = `notice ${state.notice?.kind ?? ''}`;
    replaceKeepingFocus(agents.body, agentsView(state));
    replaceKeepingFocus(approvals.body, approvalsView(state, { decide }));
    replaceKeepingFocus(deps.body, dependenciesView(state));
    feedList.replaceChildren(...feedView(state));
    root.dataset.status = state.status;
    root.dataset.lastEvent = state.model.lastEventId ?? '';
  };
  const schedule = () => {
    frame ||= requestAnimationFrame(render);
  };
  // Highlights of unblocked steps fade on their own.
  setInterval(() => {
    if (state.flashes.size > 0) schedule();
  }, 1000);

  const fail = (err: unknown) => {
    state.notice = { kind: 'error', text: err instanceof Error ? err.message : String(err) };
    schedule();
  };

  // At most one overview read in flight; events that arrive meanwhile cause exactly one more.
  const refresh = coalesce(async () => {
    state.model.reset(await conn.call('getWorkspace', {}));
    schedule();
  }, fail);

  const onEvent = (event: EventEnvelope) => {
    if (!state.addToFeed(event)) return;
    if (state.model.apply(event)) refresh();
    schedule();
  };

  const onConnected = async () => {
    const first = state.model.snapshot === undefined;
    const snapshot = await conn.call('getWorkspace', {});
    if (first) {
      const history = await conn.call('getTaskEvents', { limit: HISTORY }).catch(() => undefined);
      for (const e of history?.events ?? []) state.addToFeed(e);
    }
    state.model.reset(snapshot);
    // Stored subscriptions outlive a connection: start from a clean slate, then resume after the last event seen.
    await conn.call('unsubscribe', { all: true }).catch(() => undefined);
    await conn.call('subscribeToTasks', {
      agent_id: '*',
      event_types: [...EVENT_TYPES],
      after_event: state.model.lastEventId ?? snapshot.last_event_id ?? '0-0',
    });
    if (state.notice?.kind === 'error') state.notice = undefined;
    schedule();
  };

  function decide(planId: string, approve: boolean, reason: string, modification: boolean) {
    state.deciding.add(planId);
    schedule();
    const args = { plan_id: planId, ...(modification ? { modification: true } : {}) };
    const call = approve
      ? conn.call('plan_approve', args)
      : conn.call('plan_reject', { ...args, ...(reason ? { reason } : {}) });
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

  const conn: Connection = openConnection(identity, {
    onStatus(status, detail) {
      state.status = status;
      state.statusDetail = detail;
      schedule();
    },
    onConnected: () => void onConnected().catch(fail),
    onEvent,
  });
  document.title = `PlanHub · ${identity.workspace}`;
  schedule();
};
