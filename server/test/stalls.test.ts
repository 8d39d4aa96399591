import type { AgentSummary } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { annotateWorkspace } from '../src/presence/annotate.ts';
import { stalledSteps } from '../src/presence/stalls.ts';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

const agent = (planUpdated: number, steps: { id: string; status: string; started?: number }[]): AgentSummary =>
  ({
    agent_id: 'a',
    current_plan_id: 'p',
    plans: [
      {
        plan_id: 'p',
        agent_id: 'a',
        title: 'P',
        status: 'in_progress',
        dialect: '000',
        created_at: at(0),
        updated_at: at(planUpdated),
        progress: {
          completed: 0,
          total: 1,
          percentage: 0,
          percent: 0,
          failed: 0,
          skipped: 0,
          in_progress: 1,
          pending: 0,
          blocked: 0,
        },
        steps: steps.map((s, i) => ({
          id: s.id,
          step_id: s.id,
          sequence: i + 1,
          description: s.id,
          status: s.status,
          ...(s.started !== undefined ? { started_at: at(s.started) } : {}),
        })),
      },
    ],
    pending_approvals: [],
    pending_modifications: [],
    mode: null,
    todos: [],
    tasks: [],
  }) as AgentSummary;

describe('stalled steps', () => {
  it('flags a step in progress once neither it nor its plan changed for the stall time', () => {
    const agents = [agent(1_000, [{ id: 'step_1', status: 'in_progress', started: 1_000 }])];
    expect(stalledSteps(agents, T0 + 60_999, 60_000)).toEqual([]);
    expect(stalledSteps(agents, T0 + 61_000, 60_000).map((s) => [s.step.id, s.since])).toEqual([['step_1', at(1_000)]]);
  });

  it('counts a later change of the plan as a sign of work, and never flags steps not in progress', () => {
    const agents = [
      agent(50_000, [
        { id: 'step_1', status: 'in_progress', started: 0 },
        { id: 'step_2', status: 'pending' },
        { id: 'step_3', status: 'blocked' },
      ]),
    ];
    expect(stalledSteps(agents, T0 + 100_000, 60_000)).toEqual([]);
    expect(stalledSteps(agents, T0 + 110_000, 60_000).map((s) => s.step.id)).toEqual(['step_1']);
  });

  it('annotates the overview with presence and stalls, offline for agents no node has seen', () => {
    const snapshot = {
      workspace: 'ws',
      agents: [agent(0, [{ id: 'step_1', status: 'in_progress', started: 0 }]), { ...agent(0, []), agent_id: 'b' }],
      tasks: [],
      last_event_id: null,
      generated_at: at(0),
    };
    annotateWorkspace(snapshot, new Map([['a', { online: true, last_seen_at: at(5) }]]), T0 + 120_000, 60_000);
    expect(snapshot.agents.map((a) => [a.agent_id, a.online, a.last_seen_at])).toEqual([
      ['a', true, at(5)],
      ['b', false, null],
    ]);
    expect(snapshot.agents[0]?.plans[0]?.steps[0]?.stalled).toBe(true);
  });
});
