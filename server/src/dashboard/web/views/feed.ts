import type { EventEnvelope } from '@planhub/shared';
import { h, timeOf } from '../dom.ts';
import { FEED_GROUPS, type DashboardState } from '../state.ts';

const SHOWN = 200;

const detailOf = (e: EventEnvelope): string => {
  const p = e.payload;
  const pick = (k: string) => (typeof p[k] === 'string' && p[k] ? String(p[k]) : '');
  if (e.event_type === 'step_unblocked' && Array.isArray(p.received_outputs))
    return `received ${p.received_outputs.length} output(s); last from ${pick('unblocked_by')}`;
  if (e.event_type === 'step_blocked' && Array.isArray(p.blocked_by))
    return `waits on ${(p.blocked_by as { agent_id?: string; step_id?: string }[]).map((d) => `${d.agent_id}:${d.step_id}`).join(', ')}`;
  return pick('error') || pick('result') || pick('reason') || pick('summary') || pick('message');
};

export const feedItem = (e: EventEnvelope): HTMLElement =>
  h(
    'li',
    { class: `event type-${e.event_type}`, 'data-event-id': e.event_id, 'data-type': e.event_type },
    h('time', { datetime: e.timestamp }, timeOf(e.timestamp)),
    h('span', { class: 'etype' }, e.event_type),
    h('strong', {}, e.source_agent),
    h(
      'span',
      { class: 'what' },
      [e.source_plan_title, e.source_step_id ? `${e.source_step_id}: ${e.source_step_description ?? ''}` : '']
        .filter(Boolean)
        .join(' › '),
    ),
    h('span', { class: 'muted small' }, detailOf(e)),
  );

export interface FeedActions {
  setFilter(group: string, agent: string): void;
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
    placeholder: 'agent or plan',
    'aria-label': 'Show events of agent or plan',
  }) as HTMLInputElement;
  select.value = state.filter.group;
  const update = () => actions.setFilter(select.value, text.value);
  select.addEventListener('change', update);
  text.addEventListener('input', update);
  return h('div', { class: 'feed-controls' }, select, text);
};

export const feedView = (state: DashboardState): Node[] => {
  const events = state.visibleFeed().slice(-SHOWN).reverse();
  if (events.length === 0) return [h('li', { class: 'muted' }, 'No events yet.')];
  return events.map(feedItem);
};
