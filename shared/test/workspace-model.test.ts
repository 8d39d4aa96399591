import { describe, expect, it } from 'vitest';
import type { PlanSummary, TaskEvent, WorkspaceSnapshot } from '../src/index.ts';
import { EVENT_TYPES, WorkspaceModel, progressOf } from '../src/index.ts';
import { typedFixture as event } from './event-fixtures.ts';

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

describe('WorkspaceModel', () => {
  it('applies step events, moves progress and resolves the dependencies they end', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    expect(model.apply(event('step_completed', 'sub', 'subplan1', 'step_1'))).toBe(false);
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
    model.apply(event('plan_approval_requested', 'sub', 'subplan1', null));
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

  it('does not apply again what a newer overview already holds, so a replay cannot wind it back', () => {
    const model = new WorkspaceModel();
    const seen = event('step_started', 'sub', 'subplan1', 'step_1');
    const started = event('step_started', 'sub', 'subplan1', 'step_2');
    const completed = event('step_completed', 'sub', 'subplan1', 'step_2');
    model.reset(snapshot(null));
    model.apply(seen);
    // Reconnected: the overview read now holds the two events missed meanwhile, which the log then replays.
    const newer = snapshot(completed.event_id);
    Object.assign(newer.agents[1]!.plans[0]!.steps[1]!, { status: 'completed' });
    model.reset(newer);
    expect(model.lastEventId).toBe(completed.event_id);
    expect(model.apply(started)).toBe(false);
    expect(model.plan('subplan1')?.steps[1]?.status).toBe('completed');
    expect(model.apply(completed)).toBe(false);
  });
});

type Snapshot = WorkspaceSnapshot;
const planOf = (s: Snapshot, id: string) => s.agents.flatMap((a) => a.plans).find((p) => p.plan_id === id)!;
const stepOf = (s: Snapshot, planId: string, n: number) => planOf(s, planId).steps[n - 1]!;
const agentOf = (s: Snapshot, id: string) => s.agents.find((a) => a.agent_id === id)!;
const stepEnded = (s: Snapshot, n: number, status: string, extra: object) => {
  Object.assign(stepOf(s, 'subplan1', n), { status, completed_at: 't1', ...extra });
  Object.assign(planOf(s, 'subplan1'), { progress: progressOf(planOf(s, 'subplan1').steps), updated_at: 't1' });
  // The main plan's step 2 waited on it.
  stepOf(s, 'mainplan', 2).blocked_by = [];
};
const planStatus = (s: Snapshot, status: PlanSummary['status']) =>
  Object.assign(planOf(s, 'subplan1'), { status, updated_at: 't1' });

/**
 * Each event type with today's payload, applied to the same overview: whether the model asks for a re-read, and
 * the whole overview it leaves (`change` mutates a copy of the overview before into the one expected after).
 */
const EACH_TYPE: Record<
  (typeof EVENT_TYPES)[number],
  { event: () => TaskEvent; reread: boolean; change?: (s: Snapshot) => void }
> = {
  plan_created: { event: () => event('plan_created', 'new', 'newplan', null), reread: true },
  plan_started: {
    event: () => event('plan_started', 'sub', 'subplan1', null),
    reread: false,
    change: (s) => planStatus(s, 'in_progress'),
  },
  plan_completed: {
    event: () => event('plan_completed', 'sub', 'subplan1', null),
    reread: true,
    change: (s) => planStatus(s, 'completed'),
  },
  plan_failed: {
    event: () => event('plan_failed', 'sub', 'subplan1', null),
    reread: true,
    change: (s) => planStatus(s, 'failed'),
  },
  plan_cancelled: {
    event: () => event('plan_cancelled', 'sub', 'subplan1', null),
    reread: true,
    change: (s) => planStatus(s, 'cancelled'),
  },
  step_added: { event: () => event('step_added', 'sub', 'subplan1', 'step_9'), reread: true },
  step_started: {
    event: () => event('step_started', 'sub', 'subplan1', 'step_2'),
    reread: false,
    change: (s) => {
      Object.assign(stepOf(s, 'subplan1', 2), { status: 'in_progress', started_at: 't1' });
      Object.assign(planOf(s, 'subplan1'), { progress: progressOf(planOf(s, 'subplan1').steps), updated_at: 't1' });
    },
  },
  step_completed: {
    event: () => event('step_completed', 'sub', 'subplan1', 'step_1'),
    reread: false,
    change: (s) => stepEnded(s, 1, 'completed', { result: 'done' }),
  },
  step_failed: {
    event: () => event('step_failed', 'sub', 'subplan1', 'step_1'),
    reread: false,
    change: (s) => stepEnded(s, 1, 'failed', { error: 'boom' }),
  },
  step_skipped: {
    event: () => event('step_skipped', 'sub', 'subplan1', 'step_1'),
    reread: false,
    change: (s) => stepEnded(s, 1, 'skipped', { result: 'not needed' }),
  },
  step_blocked: {
    event: () => event('step_blocked', 'sub', 'subplan1', 'step_2'),
    reread: true,
    change: (s) => {
      stepOf(s, 'subplan1', 2).status = 'blocked';
      Object.assign(planOf(s, 'subplan1'), { progress: progressOf(planOf(s, 'subplan1').steps), updated_at: 't1' });
    },
  },
  step_unblocked: {
    event: () => event('step_unblocked', 'main', 'mainplan', 'step_2'),
    reread: false,
    change: (s) => {
      Object.assign(stepOf(s, 'mainplan', 2), { status: 'pending', blocked_by: [] });
      Object.assign(planOf(s, 'mainplan'), { progress: progressOf(planOf(s, 'mainplan').steps), updated_at: 't1' });
    },
  },
  plan_approval_requested: {
    event: () => event('plan_approval_requested', 'sub', 'subplan1', null),
    reread: false,
    change: (s) => {
      Object.assign(planStatus(s, 'awaiting_approval'), { approval_message: 'Ready?' });
      agentOf(s, 'sub').pending_approvals = [
        { plan_id: 'subplan1', agent_id: 'sub', title: 'Plan subplan1', message: 'Ready?', requested_at: 't1' },
      ];
    },
  },
  plan_approved: {
    event: () => event('plan_approved', 'alice', 'subplan1', null),
    reread: false,
    change: (s) => (planOf(s, 'subplan1').updated_at = 't1'),
  },
  plan_rejected: {
    event: () => event('plan_rejected', 'alice', 'subplan1', null),
    reread: true,
    change: (s) => planStatus(s, 'rejected'),
  },
  plan_modified: { event: () => event('plan_modified', 'sub', 'subplan1', 'step_1'), reread: true },
  todos_updated: { event: () => event('todos_updated', 'sub', null, null), reread: true },
  task_created: { event: () => event('task_created', 'sub', null, null), reread: true },
  task_updated: { event: () => event('task_updated', 'sub', null, null), reread: true },
  task_deleted: { event: () => event('task_deleted', 'sub', null, null), reread: true },
  task_unblocked: { event: () => event('task_unblocked', 'sub', null, null), reread: true },
  mode_changed: { event: () => event('mode_changed', 'sub', null, null), reread: true },
  agent_online: {
    event: () => event('agent_online', 'sub', null, null),
    reread: false,
    change: (s) => Object.assign(agentOf(s, 'sub'), { online: true, last_seen_at: 't0' }),
  },
  agent_offline: {
    event: () => event('agent_offline', 'sub', null, null),
    reread: false,
    change: (s) => Object.assign(agentOf(s, 'sub'), { online: false, last_seen_at: 't0' }),
  },
  step_stalled: {
    event: () => event('step_stalled', 'sub', 'subplan1', 'step_1'),
    reread: false,
    change: (s) => (stepOf(s, 'subplan1', 1).stalled = true),
  },
};

describe('WorkspaceModel, event type by event type', () => {
  it.each(EVENT_TYPES)('applies %s as it did when it read payload fields blind', (type) => {
    const { event: make, reread, change } = EACH_TYPE[type];
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    const expected = snapshot(null);
    change?.(expected);
    expect(model.apply(make())).toBe(reread);
    expect(model.snapshot).toEqual(expected);
  });

  it('re-reads the overview for an event type newer than it, which a dashboard may be sent, and moves past it', () => {
    const model = new WorkspaceModel();
    model.reset(snapshot(null));
    const newer = { ...event('step_completed', 'sub', 'subplan1', 'step_1'), event_type: 'step_reopened' };
    // The dashboard takes events as the union unchecked; this one's type says otherwise, which is the point.
    expect(model.apply(newer as unknown as TaskEvent)).toBe(true);
    expect(model.snapshot).toEqual(snapshot(null));
    expect(model.lastEventId).toBe(newer.event_id);
    model.reset(snapshot(null));
    expect(model.snapshot).toEqual(snapshot(null));
  });
});
