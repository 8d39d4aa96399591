import { formatDuration, neutralize } from '@planhub/shared';
import { domId, h, replaceKeepingFocus, timeOf } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import {
  placeOf,
  timelineLanes,
  timelineScale,
  timelineShape,
  tookOf,
  type TimelineBar,
  type TimelineLane,
} from './timeline-model.ts';

const statusOf = (bar: TimelineBar) => bar.status.replace('_', ' ');

/**
 * A bar's accessible name. A running step's says when it started, not how long it has run: a screen reader may
 * announce a focused link's name again whenever it changes, and a count of seconds would change it every second.
 */
const nameOf = (bar: TimelineBar, now: number): string =>
  bar.startedAt
    ? `${bar.stepId} ${bar.description}: ${statusOf(bar)}, started ${timeOf(bar.startedAt)}${bar.completedAt ? `, ${formatDuration(tookOf(bar, now))}` : ''}`
    : `${bar.stepId} ${bar.description}: ${statusOf(bar)} at ${timeOf(bar.completedAt!)}, never reported in progress`;

/** A bar's tooltip: its name, and for a running step the time it has run so far. */
const tooltipOf = (bar: TimelineBar, name: string, now: number): string =>
  bar.startedAt && !bar.completedAt ? `${name}, ${formatDuration(tookOf(bar, now))} so far` : name;

/** A drawn bar and what was last written to it, so the clock writes only what changed. */
interface Drawn {
  bar: TimelineBar;
  link: HTMLElement;
  shown: { left?: string; width?: string; name?: string; tooltip?: string };
}

/**
 * Per agent, each started step as a bar from its start to its end (or now): serial or stalled work shows at a glance.
 * A step reported ended without ever being reported in progress has an end and no start, so it is a dot at its end
 * rather than a bar that would invent a duration.
 *
 * Drawn anew only when its steps change. The clock alone (a running bar growing, the scale and the axis's end moving,
 * a duration "so far") is written into the elements in place: a page left open all day would otherwise rebuild it
 * every second, dropping what a reader hovers, focuses or selected in it.
 */
export const createTimelineView = (state: DashboardState) => {
  const el = h('div', { class: 'timeline-chart' });
  let shape: string | undefined;
  let lanes: TimelineLane[] = [];
  let drawn: Drawn[] = [];
  let axis: { from: HTMLElement; to: HTMLElement } | undefined;

  const draw = () => {
    drawn = [];
    axis = undefined;
    if (!state.model.snapshot) return [h('p', { class: 'muted' }, 'Loading the workspace…')];
    if (lanes.length === 0) return [h('p', { class: 'muted' }, 'No step has started or ended yet.')];
    const ws = state.identity.workspace;
    axis = { from: h('span'), to: h('span') };
    const barOf = (bar: TimelineBar) => {
      const dot = !bar.startedAt;
      const link = h(
        'a',
        {
          // An id, so a focused bar is focused again when a change to the steps redraws them all.
          id: domId('bar', bar.planId, bar.stepId),
          class: `bar ${dot ? 'point' : 'span'} status-${bar.status}${bar.stalled ? ' stalled' : ''}`,
          href: href(ws, { view: 'step', planId: bar.planId, stepId: bar.stepId }),
          'data-step-id': bar.stepId,
        },
        dot ? null : h('span', { class: 'bar-text', 'aria-hidden': 'true' }, bar.stepId),
      );
      drawn.push({ bar, link, shown: {} });
      return h('li', {}, link);
    };
    return [
      h('div', { class: 'axis muted small', 'aria-hidden': 'true' }, axis.from, axis.to),
      h(
        'ul',
        { class: 'lanes', 'aria-label': 'Steps over time, per agent' },
        ...lanes.map(({ agentId, bars }) =>
          h(
            'li',
            { class: 'lane', 'data-agent-id': agentId },
            h('span', { class: 'lane-name' }, agentId),
            h('ul', { class: 'bars', 'aria-label': `Steps of ${agentId}` }, ...bars.map(barOf)),
          ),
        ),
      ),
      lanes.some((lane) => lane.bars.some((b) => !b.startedAt))
        ? h(
            'p',
            { class: 'muted small', 'data-note': 'points' },
            'A dot is a step reported ended without being reported in progress: the log has its end, not its start.',
          )
        : null,
    ].filter((n): n is HTMLElement => n !== null);
  };

  /** Writes what depends on the clock, and only where it differs from what is shown: an unchanged node is left be. */
  const place = (now: number) => {
    if (!axis) return;
    const scale = timelineScale(lanes, now);
    const text = (node: HTMLElement, value: string) => {
      if (node.textContent !== value) node.textContent = value;
    };
    text(axis.from, timeOf(new Date(scale.from).toISOString()));
    text(axis.to, timeOf(new Date(scale.from + scale.span).toISOString()));
    for (const { bar, link, shown } of drawn) {
      const { left, width } = placeOf(bar, scale, now);
      if (shown.left !== left) link.style.left = shown.left = left;
      if (width !== undefined && shown.width !== width) link.style.width = shown.width = width;
      const name = neutralize(nameOf(bar, now));
      if (shown.name !== name) link.setAttribute('aria-label', (shown.name = name));
      const tooltip = neutralize(tooltipOf(bar, name, now));
      if (shown.tooltip !== tooltip) link.setAttribute('title', (shown.tooltip = tooltip));
    }
  };

  return {
    el,
    /** After the state changed: drawn anew if its steps did, else only moved on to now. */
    update() {
      const snapshot = state.model.snapshot;
      lanes = snapshot ? timelineLanes(snapshot) : [];
      const next = snapshot ? timelineShape(lanes) : 'loading';
      if (next !== shape) {
        shape = next;
        replaceKeepingFocus(el, draw());
      }
      place(Date.now());
    },
    /** Once a second while shown: a running step's bar grows and its duration counts up, nothing else is touched. */
    tick: () => place(Date.now()),
  };
};
