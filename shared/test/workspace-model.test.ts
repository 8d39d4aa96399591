import { describe, expect, it } from 'vitest';
import type { EventEnvelope, EventType, PlanSummary, WorkspaceSnapshot } from '../src/index.ts';
import { WorkspaceModel, progressOf } from '../src/index.ts';

const step = (n: number, status: PlanSummary['steps'][number]['status'] = 'pending', extra = {}) => ({
  id: `step_${n}`,
  step_id: `step_${n}`,
  sequence: n,
  description: `Step ${n}`,
  status,
  ...extra,
});

const plan = (
  id: string,
  agent: string,
  steps: PlanSummary['steps'],
  status: PlanSummary['status'] = 'in_progress',
) => ({
  plan_id: id,
  agent_id: agent,
  title: `Plan ${id}`,
  status,
  dialect: '000' as const,
  progress: progressOf(steps),
  created_at: 't0',
  updated_at: 't0',
  steps,
});

const snapshot = (last: string | null): WorkspaceSnapshot => {
  const waiting = { agent_id: 'sub', step_id: 'step_1', plan_id: 'subplan1' };
  const agent = (id: string, plans: PlanSummary[]) => ({
    agent_id: id,
    current_plan_id: plans[0]?.plan_id ?? null,
    plans,
    pending_approvals: [],
    pending_modifications: [],
    mode: null,
    todos: [],
    tasks: [],
  });
  return {
    workspace: 'ws',
    agents: [
      agent('main', [
        plan('mainplan', 'main', [
          step(1, 'completed'),
          step(2, 'blocked', { depends_on: [waiting], blocked_by: [waiting] }),
        ]),
      ]),
      agent('sub', [plan('subplan1', 'sub', [step(1, 'in_progress'), step(2)])]),
    ],
    tasks: [],
    last_event_id: last,
    generated_at: 't0',
  };
};

let seq = 0;
const event = (type: EventType, agent: string, planId: string, stepId: string | null, payload = {}): EventEnvelope => ({
  event_id: `100-${seq++}`,
  event_type: type,
  timestamp: 't1',
  workspace: 'ws',
  source_agent: agent,
  source_plan_id: planId,
  source_plan_title: `Plan ${planId}`,
  source_step_id: stepId,
  source_step_description: null,
  source_step_sequence: null,
  payload,
});

describe('WorkspaceModel', () => {
  it('applies step events, moves progress and resolves the dependencies they end', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    expect(model.apply(event('step_completed', 'sub', 'subplan1', 'step_1', { result: 'done' }))).toBe(false);
    const sub = model.plan('subplan1');
    expect(sub?.steps[0]).toMatchObject({ status: 'completed', result: 'done' });
    expect(sub?.progress).toMatchObject({ completed: 1, total: 2, percentage: 50 });
    // The waiting step loses the resolved dependency at once; it unblocks with its own event.
    expect(model.plan('mainplan')?.steps[1]).toMatchObject({ status: 'blocked', blocked_by: [] });
    expect(model.apply(event('step_unblocked', 'main', 'mainplan', 'step_2'))).toBe(false);
    expect(model.plan('mainplan')?.steps[1]?.status).toBe('pending');
  });

  it('asks for a re-read when an event cannot be applied from its envelope', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    expect(model.apply(event('plan_created', 'new', 'newplan', null))).toBe(true);
    expect(model.apply(event('step_added', 'sub', 'subplan1', 'step_9'))).toBe(true);
    expect(model.apply(event('todos_updated', 'sub', 'subplan1', null))).toBe(true);
    expect(model.apply(event('step_blocked', 'sub', 'subplan1', 'step_2'))).toBe(true);
    expect(model.plan('subplan1')?.steps[1]?.status).toBe('blocked');
  });

  it('tracks approvals from their events', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    model.apply(event('plan_approval_requested', 'sub', 'subplan1', null, { message: 'Ready?' }));
    expect(model.agent('sub')?.pending_approvals).toEqual([
      { plan_id: 'subplan1', agent_id: 'sub', title: 'Plan subplan1', message: 'Ready?', requested_at: 't1' },
    ]);
    expect(model.plan('subplan1')?.status).toBe('awaiting_approval');
    model.apply(event('plan_approved', 'alice', 'subplan1', null));
    model.apply(event('plan_started', 'sub', 'subplan1', null));
    expect(model.agent('sub')?.pending_approvals).toEqual([]);
    expect(model.plan('subplan1')?.status).toBe('in_progress');
  });

  it('ignores repeated and older events, and re-applies newer ones over an older overview', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    const started = event('step_started', 'sub', 'subplan1', 'step_2');
    const completed = event('step_completed', 'sub', 'subplan1', 'step_2');
    model.apply(started);
    model.apply(completed);
    expect(model.apply(started)).toBe(false);
    expect(model.plan('subplan1')?.steps[1]?.status).toBe('completed');
    // An overview read before `completed` was committed must not undo it.
    model.reset(snapshot(started.event_id));
    expect(model.plan('subplan1')?.steps[1]?.status).toBe('completed');
    expect(model.lastEventId).toBe(completed.event_id);
  });
});
