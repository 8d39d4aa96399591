import type { AgentSummary, PlanSummary, StepSummary } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES } from '@planhub/shared';
import { clockOf, h } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';

type Why = 'failed' | 'stalled' | 'agent offline';

interface Trouble {
  why: Why;
  agent: AgentSummary;
  plan: PlanSummary;
  step: StepSummary;
}

/**
 * Steps of unfinished plans that no one will move without a person: failed (the plan goes on, so the agent may be
 * waiting for help), stalled, or in progress for an agent that is offline. Ended plans are left out: their agent
 * has said how they ended.
 */
const troubles = (state: DashboardState): Trouble[] => {
  const found: Trouble[] = [];
  for (const agent of state.model.snapshot?.agents ?? [])
    for (const plan of agent.plans) {
      if (FINISHED_PLAN_STATUSES.has(plan.status)) continue;
      for (const step of plan.steps) {
        const why: Why | undefined =
          step.status === 'failed'
            ? 'failed'
            : step.status !== 'in_progress'
              ? undefined
              : step.stalled
                ? 'stalled'
                : agent.online === false
                  ? 'agent offline'
                  : undefined;
        if (why) found.push({ why, agent, plan, step });
      }
    }
  return found;
};

const detailOf = ({ why, agent, step }: Trouble): string => {
  if (why === 'failed') return step.error ?? '';
  const since = why === 'stalled' ? step.started_at : agent.last_seen_at;
  const at = since ? Date.parse(since) : NaN;
  return Number.isNaN(at) ? '' : `${why === 'stalled' ? 'started' : 'last seen'} ${clockOf(at)}`;
};

/** The overview's first answer to "what is stuck": one line per step, each a link to its page. */
export const attentionView = (state: DashboardState): Node[] => {
  if (!state.model.snapshot) return [];
  const list = troubles(state);
  if (list.length === 0)
    return [h('p', { class: 'muted' }, 'No step has failed, stalled or lost its agent in the running plans.')];
  return [
    h(
      'ul',
      { class: 'attention-list' },
      ...list.map((t) =>
        h(
          'li',
          { 'data-why': t.why, 'data-agent-id': t.agent.agent_id, 'data-step-id': t.step.id },
          h('span', { class: `badge why-${t.why.replace(' ', '-')}` }, t.why),
          h('strong', {}, t.agent.agent_id),
          h(
            'a',
            { href: href(state.identity.workspace, { view: 'step', planId: t.plan.plan_id, stepId: t.step.id }) },
            `${t.plan.title} › ${t.step.id}: ${t.step.description}`,
          ),
          h('span', { class: 'muted small' }, detailOf(t)),
        ),
      ),
    ),
  ];
};
