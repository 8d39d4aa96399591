import type { TaskEvent } from '@planhub/shared';
import { unblockedBy } from '@planhub/shared';
import { h, reconcile, replaceKeepingFocus, timeOf } from '../dom.ts';
import { href } from '../router.ts';
import { FEED_GROUPS, type DashboardState } from '../state.ts';
import { withCuts } from './feed-cuts.ts';

const dataLost = (state: DashboardState): boolean => state.storeTrouble?.kind === 'lost';
/** An event whose plan the server no longer has: its store lost its data, or restarted without it. */
const goneOf = (state: DashboardState, e: TaskEvent): boolean => dataLost(state) || state.beforeBreak(e);
/**
 * Which element shows an event: ids repeat across histories (a new log's may meet an old one's), and an item built
 * with its plan's link is built again, once, without it when that plan is gone.
 */
const itemKey = (state: DashboardState, e: TaskEvent): string =>
  `${state.historyOf(e)}:${goneOf(state, e) ? 'gone:' : ''}${e.event_id}`;

/** The line of detail of an event; a type newer than this page (see connection.ts) shows its envelope only. */
const detailOf = (e: TaskEvent): string => {
  switch (e.event_type) {
    case 'step_unblocked': {
      const by = unblockedBy(e);
      return `received ${e.payload.received_outputs.length} output(s); last from ${by.agent_id}:${by.step_id}`;
    }
    case 'step_blocked':
      return `waits on ${e.payload.blocked_by.map((d) => `${d.agent_id}:${d.step_id}`).join(', ')}`;
    case 'step_stalled':
      return `no update for ${Math.round(e.payload.stalled_for_ms / 1000)} s`;
    case 'agent_offline':
      return e.payload.reason === 'node_lost' ? 'its node stopped' : 'disconnected';
    case 'step_started':
    case 'step_completed':
    case 'step_failed':
    case 'step_skipped':
      return e.payload.error || e.payload.result || '';
    case 'plan_rejected':
    case 'plan_modified':
    case 'task_deleted':
    case 'task_unblocked':
      return e.payload.reason ?? '';
    case 'plan_completed':
    case 'plan_failed':
    case 'plan_cancelled':
      return e.payload.summary ?? '';
    case 'plan_started':
    case 'plan_approval_requested':
      return e.payload.message ?? '';
    default:
      return '';
  }
};

const whatOf = (e: TaskEvent, workspace: string, gone: boolean): Node | string => {
  const text = [e.source_plan_title, e.source_step_id ? `${e.source_step_id}: ${e.source_step_description ?? ''}` : '']
    .filter(Boolean)
    .join(' › ');
  // After the store lost its data, the plan no longer exists: a link would open a page of nothing.
  if (!e.source_plan_id || gone) return text;
  const route = e.source_step_id
    ? { view: 'step' as const, planId: e.source_plan_id, stepId: e.source_step_id }
    : { view: 'plan' as const, planId: e.source_plan_id };
  return h('a', { href: href(workspace, route) }, text);
};

export const feedItem = (e: TaskEvent, workspace: string, gone = false): HTMLElement =>
  h(
    'li',
    {
      class: `event type-${e.event_type}${gone ? ' gone' : ''}`,
      'data-event-id': e.event_id,
      'data-type': e.event_type,
    },
    h('time', { datetime: e.timestamp }, timeOf(e.timestamp)),
    h('span', { class: 'etype' }, e.event_type),
    h('strong', {}, e.source_agent),
    h('span', { class: 'what' }, whatOf(e, workspace, gone)),
    h('span', { class: 'muted small' }, detailOf(e)),
  );

export interface FeedActions {
  setFilter(group: string, agent: string): void;
  loadOlder(): void;
}

/** The filter controls; built once so typing in them is never interrupted by live updates. */
export const feedControls = (state: DashboardState, actions: FeedActions): HTMLElement => {
  const select = h(
    'select',
    { id: 'feed-group', 'aria-label': 'Show events of kind' },
    ...Object.entries(FEED_GROUPS).map(([value, g]) => h('option', { value }, g.label)),
  ) as HTMLSelectElement;
  const text = h('input', {
    id: 'feed-agent',
    type: 'search',
    placeholder: 'agent, plan or text',
    'aria-label': 'Show events mentioning',
  }) as HTMLInputElement;
  select.value = state.filter.group;
  const update = () => actions.setFilter(select.value, text.value);
  select.addEventListener('change', update);
  text.addEventListener('input', update);
  return h('div', { class: 'feed-controls' }, select, text);
};

/**
 * The feed, newest first: live events and the older pages read for the current filter. `visible` is
 * state.visibleFeed(), computed once a render for the list and its footer.
 */
export const feedView = (
  state: DashboardState,
  visible: readonly TaskEvent[],
  item = (e: TaskEvent) => feedItem(e, state.identity.workspace, goneOf(state, e)),
): Node[] => {
  const events = visible.slice(-state.feedShown).reverse();
  // Lines where the history broke: the store's loss, or a restart without it; what is under one happened before.
  if (events.length > 0) return withCuts(state, events, events.map(item));
  const older = state.older?.key === state.filterKey ? state.older : undefined;
  const scanned = state.feed.length + (older?.scanned ?? 0);
  if (scanned === 0) return [h('li', { class: 'muted' }, 'No events yet.')];
  return [
    h(
      'li',
      { class: 'muted', 'data-empty': 'filtered' },
      state.olderGone
        ? `No matching events among the ${scanned} this page holds.`
        : older?.nextBefore === null
          ? `No matching events in the last ${scanned} scanned, back to the oldest event kept.`
          : `No matching events in the last ${scanned} scanned; load older to look further back.`,
    ),
  ];
};

/** Where the reader is in the list when they have scrolled away from its newest end: an event and its top. */
export interface FeedReading {
  item: Element;
  top: number;
}

const readingAt = (list: HTMLElement): FeedReading | undefined => {
  const box = list.getBoundingClientRect();
  const ownScroll = list.scrollHeight > list.clientHeight;
  if (ownScroll ? list.scrollTop <= 0 : box.top >= 0) return undefined;
  const line = Math.max(box.top, 0);
  for (const item of Array.from(list.children))
    if (item.getBoundingClientRect().bottom > line) return { item, top: item.getBoundingClientRect().top };
  return undefined;
};

/**
 * The feed's list. An event keeps its element from one render to the next, so a link focused in it stays focused;
 * and a reader who scrolled down to older events keeps them where they are while newer ones arrive above (done
 * here, not by the browser's scroll anchoring, which not every browser has). At the top the list follows the news.
 */
export const createFeedList = (state: DashboardState) => {
  const el = h('ol', { class: 'feed', 'aria-label': 'Events, newest first' });
  let built = new Map<string, HTMLElement>();
  return {
    el,
    /**
     * Reads layout: the controller takes it before a render writes anything, so the browser lays the page out once
     * a frame rather than again in the middle of it.
     */
    reading: (): FeedReading | undefined => readingAt(el),
    update(visible: readonly TaskEvent[], reading: FeedReading | undefined) {
      const next = new Map<string, HTMLElement>();
      const nodes = feedView(state, visible, (e) => {
        const key = itemKey(state, e);
        const li = built.get(key) ?? feedItem(e, state.identity.workspace, goneOf(state, e));
        next.set(key, li);
        return li;
      });
      built = next;
      reconcile(el, nodes);
      if (!reading?.item.isConnected) return;
      const moved = reading.item.getBoundingClientRect().top - reading.top;
      if (moved === 0) return;
      if (el.scrollHeight > el.clientHeight) el.scrollTop += moved;
      else window.scrollBy(0, moved);
    },
  };
};

/** "Load older": first the older events the page holds but does not show, then pages of the server's log. */
export const feedFooter = (state: DashboardState, visible: readonly TaskEvent[], actions: FeedActions): Node[] => {
  const older = state.older?.key === state.filterKey ? state.older : undefined;
  const held = visible.length;
  const shown = Math.min(held, state.feedShown);
  const count =
    held === 0
      ? []
      : [
          h(
            'p',
            { id: 'feed-count', class: 'muted small' },
            shown < held
              ? `Showing the newest ${shown} of ${held} matching events loaded.`
              : `Showing all ${held} matching events loaded.`,
          ),
        ];
  // After a loss or a restart only what the page holds can be shown: the server's log it would read is gone.
  if (state.olderGone && shown === held) return count;
  if (older?.nextBefore === null && shown === held)
    return [
      ...count,
      h('p', { id: 'feed-end', class: 'muted small', tabindex: -1 }, 'Reached the oldest event the server keeps.'),
    ];
  return [
    ...count,
    // Marked, not disabled, while a page loads: a disabled button cannot hold the focus of the reader who pressed it.
    // loadOlder ignores a press while one is loading.
    h(
      'button',
      {
        id: 'feed-older',
        type: 'button',
        'aria-disabled': older?.loading ? 'true' : undefined,
        onclick: () => actions.loadOlder(),
      },
      older?.loading ? 'Loading…' : 'Load older',
    ),
    ...(older ? [h('span', { class: 'muted small' }, ` ${older.scanned} older events scanned on the server`)] : []),
  ];
};

/**
 * Renders the footer keeping the focus of a reader who pressed "Load older": on the button while it loads and after,
 * or on the note that takes its place once the server has nothing older.
 */
export const replaceFeedFooter = (footer: HTMLElement, nodes: Node[]): void => {
  const pressed = document.activeElement?.id === 'feed-older' && footer.contains(document.activeElement);
  replaceKeepingFocus(footer, nodes);
  if (pressed && !footer.contains(document.activeElement)) footer.querySelector<HTMLElement>('#feed-end')?.focus();
};
