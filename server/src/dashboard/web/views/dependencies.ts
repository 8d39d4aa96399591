import type { PlanSummary, StepSummary } from '@planhub/shared';
import { h } from '../dom.ts';
import type { DashboardState } from '../state.ts';
import { dependencyState, dependencyStateText, dependencyTarget } from './dependency-state.ts';
import { statusBadge, unblockedMark } from './status-badges.ts';

const DEP_MARK = { open: '… ', resolved: '✓ ', 'given-up': '– ' } as const;

interface Edge {
  agentId: string;
  plan: PlanSummary;
  step: StepSummary;
}

/** Which steps wait on which agents' steps; a step lights up when its last dependency ends and it unblocks. */
export const dependenciesView = (state: DashboardState): Node[] => {
  const snapshot = state.model.snapshot;
  if (!snapshot) return [];
  const edges: Edge[] = snapshot.agents.flatMap((agent) =>
    agent.plans.flatMap((plan) =>
      plan.steps
        .filter((s) => (s.depends_on?.length ?? 0) > 0)
        .map((step) => ({ agentId: agent.agent_id, plan, step })),
    ),
  );
  if (edges.length === 0) return [h('p', { class: 'muted' }, 'No step waits on another agent.')];
  edges.sort((a, b) => Number(b.step.status === 'blocked') - Number(a.step.status === 'blocked'));
  return [
    h(
      'ul',
      { class: 'edges' },
      ...edges.map(({ agentId, plan, step }) => {
        const blocked = step.status === 'blocked';
        const flash = state.flashing(plan.plan_id, step.id);
        return h(
          'li',
          {
            class: `edge ${blocked ? 'waiting' : 'ready'}${flash ? ' flash' : ''}`,
            'data-edge': `${agentId}:${step.id}`,
            'data-status': step.status,
          },
          h(
            'div',
            { class: 'dependent' },
            h('strong', {}, agentId),
            ' ',
            h('span', { class: 'sid' }, step.id),
            ' ',
            h('span', { class: 'desc' }, step.description),
            ' ',
            statusBadge(step.status),
            unblockedMark(step),
          ),
          h(
            'ul',
            { class: 'deps', 'aria-label': `${step.id} of ${agentId} waits on` },
            ...(step.depends_on ?? []).map((ref) => {
              const target = dependencyTarget(snapshot, ref);
              const dependency = dependencyState(step, plan, ref);
              return h(
                'li',
                { class: `dep ${dependency}`, 'data-dep': `${ref.agent_id}:${ref.step_id}` },
                h('span', { 'aria-hidden': 'true' }, DEP_MARK[dependency]),
                `${ref.agent_id}:${ref.step_id}`,
                target ? h('span', { class: 'muted small' }, ` ${target.description}`) : null,
                h('span', { class: 'small' }, ` — ${dependencyStateText(dependency, step, plan, target)}`),
              );
            }),
          ),
        );
      }),
    ),
  ];
};
