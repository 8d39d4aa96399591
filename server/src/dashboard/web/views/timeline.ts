import { formatDuration, stepDuration } from '@planhub/shared';
import { h, timeOf } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';

/**
 * Per agent, each started step as a bar from its start to its end (or now): serial or stalled work shows at a glance.
 * A step reported ended without ever being reported in progress has an end and no start, so it is a dot at its end
 * rather than a bar that would invent a duration.
 */
export const timelineView = (state: DashboardState): Node[] => {
  const snapshot = state.model.snapshot;
  if (!snapshot) return [h('p', { class: 'muted' }, 'Loading the workspace…')];
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const rows = snapshot.agents
    .map((agent) => ({
      agent,
      bars: agent.plans.flatMap((plan) =>
        plan.steps
          .filter((s) => s.started_at || s.completed_at)
          .map((step) => ({ plan, step, start: Date.parse((step.started_at ?? step.completed_at)!) })),
      ),
    }))
    .filter((r) => r.bars.length > 0);
  if (rows.length === 0) return [h('p', { class: 'muted' }, 'No step has started or ended yet.')];
  const starts = rows.flatMap((r) => r.bars.map((b) => b.start));
  const ends = rows.flatMap((r) => r.bars.map((b) => (b.step.completed_at ? Date.parse(b.step.completed_at) : now)));
  const from = Math.min(...starts);
  const span = Math.max(1, Math.max(...ends) - from);
  const ws = state.identity.workspace;
  const points = rows.some((r) => r.bars.some((b) => !b.step.started_at));
  return [
    h(
      'div',
      { class: 'axis muted small', 'aria-hidden': 'true' },
      h('span', {}, timeOf(new Date(from).toISOString())),
      h('span', {}, timeOf(new Date(from + span).toISOString())),
    ),
    h(
      'ul',
      { class: 'lanes', 'aria-label': 'Steps over time, per agent' },
      ...rows.map(({ agent, bars }) =>
        h(
          'li',
          { class: 'lane', 'data-agent-id': agent.agent_id },
          h('span', { class: 'lane-name' }, agent.agent_id),
          h(
            'ul',
            { class: 'bars', 'aria-label': `Steps of ${agent.agent_id}` },
            ...bars.map(({ plan, step, start }) => {
              const left = ((start - from) / span) * 100;
              const link = (label: string, kind: string, ...text: Node[]) =>
                h(
                  'a',
                  {
                    class: `bar ${kind} status-${step.status}${step.stalled ? ' stalled' : ''}`,
                    href: href(ws, { view: 'step', planId: plan.plan_id, stepId: step.id }),
                    'aria-label': label,
                    title: label,
                    'data-step-id': step.id,
                  },
                  ...text,
                );
              if (!step.started_at) {
                const dot = link(
                  `${step.id} ${step.description}: ${step.status.replace('_', ' ')} at ${timeOf(step.completed_at!)}, never reported in progress`,
                  'point',
                );
                // Kept inside the lane at either end, so a dot never adds sideways scroll.
                dot.style.left = `calc(${left}% - ${(left / 100) * 10}px)`;
                return h('li', {}, dot);
              }
              const took = stepDuration(step, nowIso) ?? 0;
              const width = Math.max(0.8, (took / span) * 100);
              const bar = link(
                `${step.id} ${step.description}: ${step.status.replace('_', ' ')}, started ${timeOf(step.started_at)}, ${formatDuration(took)}${step.completed_at ? '' : ' so far'}`,
                'span',
                h('span', { class: 'bar-text', 'aria-hidden': 'true' }, step.id),
              );
              bar.style.left = `${Math.min(left, 99.2)}%`;
              bar.style.width = `${Math.min(width, 100 - Math.min(left, 99.2))}%`;
              return h('li', {}, bar);
            }),
          ),
        ),
      ),
    ),
    points
      ? h(
          'p',
          { class: 'muted small', 'data-note': 'points' },
          'A dot is a step reported ended without being reported in progress: the log has its end, not its start.',
        )
      : null,
  ].filter((n): n is HTMLElement => n !== null);
};
