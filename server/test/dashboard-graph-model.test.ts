import type { WorkspaceSnapshot } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { dependencyGraph } from '../src/dashboard/web/views/graph-model.ts';

type Snapshot = WorkspaceSnapshot;
type Agent = Snapshot['agents'][number];
type Plan = Agent['plans'][number];
type Step = Plan['steps'][number];

const step = (id: string, status: Step['status'], extra: Partial<Step> = {}): Step => ({
  id,
  step_id: id,
  sequence: Number(id.split('_')[1]),
  description: id,
  status,
  ...extra,
});
const plan = (plan_id: string, agent_id: string, status: Plan['status'], steps: Step[]): Plan =>
  ({ plan_id, agent_id, title: plan_id, status, steps }) as Plan;
const agent = (agent_id: string, plans: Plan[]): Agent => ({ agent_id, plans }) as unknown as Agent;

/**
 * Agent main's cancelled plan A had a step_2 waiting on impl's step_1; its plan B has a step_2 waiting on impl's
 * step_2. The same step id in two plans is two steps.
 */
const snapshot = (): Snapshot =>
  ({
    agents: [
      agent('impl', [plan('I', 'impl', 'in_progress', [step('step_1', 'pending'), step('step_2', 'pending')])]),
      agent('main', [
        plan('B', 'main', 'in_progress', [
          step('step_1', 'completed'),
          step('step_2', 'blocked', {
            depends_on: [{ agent_id: 'impl', step_id: 'step_2' }],
            blocked_by: [{ agent_id: 'impl', step_id: 'step_2' }],
          }),
        ]),
        plan('A', 'main', 'cancelled', [
          step('step_1', 'completed'),
          step('step_2', 'skipped', { depends_on: [{ agent_id: 'impl', step_id: 'step_1' }] }),
        ]),
      ]),
    ],
  }) as unknown as Snapshot;

describe('the dependency graph’s model', () => {
  it('makes one node per plan step, so two plans’ steps sharing an id keep their own arrows', () => {
    const graph = dependencyGraph(snapshot());
    const key = (id: string) => {
      const node = graph.nodes.find((n) => n.id === id)!;
      return `${node.agentId}/${node.planId}/${node.stepId}`;
    };
    expect(graph.nodes.map((n) => key(n.id)).sort()).toEqual([
      'impl/I/step_1',
      'impl/I/step_2',
      'main/A/step_2',
      'main/B/step_2',
    ]);
    expect(graph.edges.map((e) => `${key(e.from)} -> ${key(e.to)} ${e.open ? 'open' : 'ended'}`).sort()).toEqual([
      'main/A/step_2 -> impl/I/step_1 ended',
      'main/B/step_2 -> impl/I/step_2 open',
    ]);
    expect(new Set(graph.edges.map((e) => e.id)).size).toBe(2);
    expect(graph.agents).toEqual(['main', 'impl']);
  });

  it('keys a dependency on a step no shown plan has by the plan it names', () => {
    const snap = snapshot();
    const main = snap.agents[1]!;
    main.plans[0]!.steps[1]!.depends_on = [
      { agent_id: 'gone', step_id: 'step_1', plan_id: 'P1' },
      { agent_id: 'gone', step_id: 'step_1', plan_id: 'P2' },
    ];
    const graph = dependencyGraph(snap);
    const gone = graph.nodes.filter((n) => n.agentId === 'gone');
    expect(gone.map((n) => n.stepId)).toEqual(['step_1', 'step_1']);
    expect(new Set(gone.map((n) => n.id)).size).toBe(2);
    // Not a link to a plan the page does not know: the node has no plan of its own.
    expect(gone.map((n) => n.planId)).toEqual([undefined, undefined]);
  });
});
