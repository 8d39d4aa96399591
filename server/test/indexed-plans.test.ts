import type { Plan, IndexedPlanStatus } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import type { CreateIndexedPlanInput } from '../src/core/indexed-plans/indexed-plan.ts';
import {
  changeTimeAfter,
  createIndexedPlan,
  indexedPlanView,
  updateIndexedStep,
} from '../src/core/indexed-plans/indexed-plan.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { errorOf } from './support/error-of.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:05:00.000Z';

const DEPLOY = [
  'Run test suite',
  'Build Docker image',
  'Push to container registry',
  'Deploy to cluster',
  'Run smoke tests',
  'Update documentation',
];

const create = (steps: CreateIndexedPlanInput['steps'], title = 'Deploy to production') =>
  createIndexedPlan({ plan_id: 'abc12345', workspace: 'ws', agent_id: 'main', title, steps, now: NOW });

const deploy = () => create(DEPLOY.map((description) => ({ description }))).plan;

/** A seed-000 plan, pending as createPlan leaves it (not started, so not yet approved). */
const backbonePlan = (steps: string[]) =>
  newPlan({
    plan_id: 'p0000000',
    workspace: 'ws',
    agent_id: 'main',
    title: 'T',
    dialect: '000',
    steps: steps.map((description) => ({ description })),
    now: NOW,
  });

const set = (plan: Plan, index: number, status: IndexedPlanStatus, notes?: string) =>
  updateIndexedStep(plan, { index, status, notes }, LATER);

describe('seed 004 create_plan', () => {
  it('creates the deployment plan running at once, with created and started events', () => {
    const { plan, events } = create(DEPLOY.map((description) => ({ description })));
    expect(plan).toMatchObject({ plan_id: 'abc12345', status: 'in_progress', dialect: '004', started_at: NOW });
    expect(plan.steps.map((s) => [s.id, s.status])).toEqual(DEPLOY.map((_, i) => [`step_${i + 1}`, 'pending']));
    expect(events.map((e) => e.event_type)).toEqual(['plan_created', 'plan_started']);
    expect(events[0]?.payload.steps).toHaveLength(6);
  });

  it('keeps pre-set statuses and notes (the code review checklist)', () => {
    const { plan } = create(
      [
        { description: 'Read the PR description', status: 'completed', notes: 'Looks good' },
        { description: 'Review code changes', status: 'in_progress' },
        { description: 'Run tests locally', status: 'pending' },
        { description: 'Leave review comments', status: 'pending' },
      ],
      'Code review checklist',
    );
    expect(indexedPlanView(plan)).toMatchObject({
      ok: true,
      title: 'Code review checklist',
      steps: [
        { index: 0, description: 'Read the PR description', status: 'completed', notes: 'Looks good' },
        { index: 1, description: 'Review code changes', status: 'in_progress', notes: '' },
        { index: 2, description: 'Run tests locally', status: 'pending', notes: '' },
        { index: 3, description: 'Leave review comments', status: 'pending', notes: '' },
      ],
      completed_count: 1,
      total_count: 4,
    });
  });

  it('records a plan whose steps are all done as completed', () => {
    const { plan, events } = create([
      { description: 'a', status: 'completed' },
      { description: 'b', status: 'skipped' },
    ]);
    expect(plan.status).toBe('completed');
    expect(events.map((e) => e.event_type)).toEqual(['plan_created', 'plan_started', 'plan_completed']);
  });
});

describe('seed 004 update_plan', () => {
  it('reproduces the seed examples and the example output of get_plan', () => {
    let plan = deploy();
    let out = set(plan, 0, 'completed', 'All 42 tests passed');
    expect(out.events.map((e) => e.event_type)).toEqual(['step_completed']);
    expect(out.ended).toBe(true);
    plan = out.plan;
    out = set(plan, 1, 'in_progress', 'Docker build started at 14:30');
    expect(out.events.map((e) => e.event_type)).toEqual(['step_started']);
    plan = out.plan;
    plan = set(plan, 1, 'completed', '').plan;
    plan = set(plan, 2, 'in_progress').plan;
    expect(indexedPlanView(plan)).toMatchObject({
      ok: true,
      plan_id: 'abc12345',
      title: 'Deploy to production',
      steps: [
        { index: 0, description: 'Run test suite', status: 'completed', notes: 'All 42 tests passed' },
        { index: 1, description: 'Build Docker image', status: 'completed', notes: '' },
        { index: 2, description: 'Push to container registry', status: 'in_progress', notes: '' },
        { index: 3, description: 'Deploy to cluster', status: 'pending', notes: '' },
        { index: 4, description: 'Run smoke tests', status: 'pending', notes: '' },
        { index: 5, description: 'Update documentation', status: 'pending', notes: '' },
      ],
      completed_count: 2,
      total_count: 6,
    });
    out = set(plan, 3, 'skipped', 'Not needed for this release');
    expect(out.events.map((e) => e.event_type)).toEqual(['step_skipped']);
    expect(out.step).toMatchObject({ description: 'Deploy to cluster', status: 'skipped' });
  });

  it('answers the seed range error for an index past the end or below zero', () => {
    expect(errorOf(() => set(deploy(), 7, 'completed'))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Step index 7 out of range (0-5)',
    });
    expect(errorOf(() => set(deploy(), -1, 'completed')).message).toBe('Step index -1 out of range (0-5)');
  });

  it('explains that a plan without steps has no index at all', () => {
    const { plan } = create([]);
    expect(errorOf(() => set(plan, 0, 'completed')).message).toBe(
      'Plan abc12345 has no steps, so there is no step index 0. Create a plan with steps using create_plan.',
    );
  });

  it('completes the plan when the last open step ends, and reopens it with a step', () => {
    let plan = create([{ description: 'a' }, { description: 'b' }]).plan;
    plan = set(plan, 0, 'completed').plan;
    const out = set(plan, 1, 'skipped');
    expect(out.plan.status).toBe('completed');
    expect(out.events.map((e) => e.event_type)).toEqual(['step_skipped', 'plan_completed']);
    const reopened = set(out.plan, 0, 'pending');
    expect(reopened.plan.status).toBe('in_progress');
    expect(reopened.plan.completed_at).toBeUndefined();
    const cancelled = { ...out.plan, status: 'cancelled' as const };
    expect(errorOf(() => set(cancelled, 0, 'pending')).code).toBe('FAILED_PRECONDITION');
  });

  it('lets a step go back to pending, announced as a plan modification', () => {
    const plan = set(deploy(), 0, 'in_progress').plan;
    const out = set(plan, 0, 'pending');
    expect(out.step.status).toBe('pending');
    expect(out.events.map((e) => [e.event_type, e.payload.change])).toEqual([['plan_modified', 'step_status']]);
  });

  it('records notes alone and changes nothing when nothing differs', () => {
    const plan = set(deploy(), 0, 'completed').plan;
    const notes = set(plan, 0, 'completed', 'took 3 min');
    expect(notes.events.map((e) => [e.event_type, e.payload.change])).toEqual([['plan_modified', 'step_notes']]);
    const same = set(notes.plan, 0, 'completed', 'took 3 min');
    expect(same.changed).toBe(false);
    expect(same.events).toEqual([]);
  });

  it('only lets a step blocked on other agents be skipped', () => {
    const plan = deploy();
    const step = plan.steps[1];
    if (!step) throw new Error('no step');
    step.status = 'blocked';
    step.blocked_by = [{ agent_id: 'other', step_id: 'step_1' }];
    expect(errorOf(() => set(plan, 1, 'completed')).message).toMatch(/blocked waiting on other:step_1/);
    expect(set(plan, 1, 'skipped').step.status).toBe('skipped');
  });

  it('refuses step changes on a plan that waits for approval', () => {
    const pending = backbonePlan(['a']);
    expect(errorOf(() => set(pending, 0, 'completed')).code).toBe('FAILED_PRECONDITION');
  });
});

describe('seed 004 view of other dialects', () => {
  it("shows a seed-000 step's result as its notes", () => {
    const plan = backbonePlan(['a', 'b']);
    if (plan.steps[0]) Object.assign(plan.steps[0], { status: 'completed', result: 'Found 3 files' });
    expect(indexedPlanView(plan).steps.map((s) => [s.index, s.status, s.notes])).toEqual([
      [0, 'completed', 'Found 3 files'],
      [1, 'pending', ''],
    ]);
  });
});

describe('seed 004 change times', () => {
  const agent = (changed: string[]) => ({
    agent_id: 'main',
    plans: changed.map((changed_at, i) => ({
      plan_id: `p${i}`,
      dialect: '004' as const,
      finished: false,
      created_at: NOW,
      changed_at,
    })),
  });

  it("stamps a change after the agent's latest one, so same-millisecond changes stay ordered", () => {
    expect(changeTimeAfter(LATER, agent([NOW]))).toBe(LATER);
    expect(changeTimeAfter(NOW, agent([NOW]))).toBe('2026-01-01T00:00:00.001Z');
    expect(changeTimeAfter(NOW, agent([LATER, NOW]))).toBe('2026-01-01T00:05:00.001Z');
    expect(changeTimeAfter(NOW, agent([]))).toBe(NOW);
  });
});
