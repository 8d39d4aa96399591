import type { ImplementationPlan, Plan } from '@planhub/shared';
import { ImplementationPlanSchema } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { planFromImplementationPlan } from '../src/core/plan-mode/build-plan.ts';
import { decideModification, requestModification } from '../src/core/plan-mode/modification.ts';
import { decideApproval, requestApproval } from '../src/core/plans/plan-lifecycle.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { planView } from '../src/core/plans/plan-views.ts';

const T0 = '2025-01-01T00:00:00.000Z';

const IMPL: ImplementationPlan = ImplementationPlanSchema.parse({
  summary: 'Move billing',
  approach: 'DROP the old tables first, then backfill',
  alternatives_considered: ['dual write'],
  risks: ['all invoices lost', { risk: 'downtime', mitigation: 'at night' }],
  files_to_modify: ['src/billing.ts'],
  tests_to_write: ['backfill keeps invoices'],
  estimated_complexity: 'large',
  steps: [
    { id: 1, description: 'Drop tables', files: ['db/schema.sql'], verification: 'psql -c "\\dt"' },
    { id: 2, description: 'Backfill', depends_on: [1] },
  ],
});

const build = (): Plan =>
  planFromImplementationPlan({
    plan_id: 'p1',
    workspace: 'ws',
    agent_id: 'main',
    goal: 'Migrate billing',
    scope: 'src/billing',
    plan: IMPL,
    now: T0,
  });

/** getPlanStatus of a 002 plan carries the plan object its agent submitted: what a person approves. */
describe('planView of a 002 plan', () => {
  it('adds the submitted plan object, with each step’s files and verification by its step id', () => {
    expect(planView(build()).plan_mode).toEqual({
      goal: 'Migrate billing',
      scope: 'src/billing',
      summary: 'Move billing',
      approach: 'DROP the old tables first, then backfill',
      alternatives_considered: ['dual write'],
      risks: ['all invoices lost', { risk: 'downtime', mitigation: 'at night' }],
      files_to_create: [],
      files_to_modify: ['src/billing.ts'],
      tests_to_write: ['backfill keeps invoices'],
      estimated_complexity: 'large',
      steps: [
        { step_id: 'step_1', id: 1, files: ['db/schema.sql'], depends_on: [], verification: 'psql -c "\\dt"' },
        { step_id: 'step_2', id: 2, files: [], depends_on: [1], verification: null },
      ],
    });
  });

  it('keeps the step views and upstream’s fields as they were: `details` stays out', () => {
    const view = planView(build());
    expect(view.steps.every((s) => !('details' in s))).toBe(true);
    expect(Object.keys(view)).toEqual([
      'plan_id',
      'agent_id',
      'title',
      'status',
      'dialect',
      'progress',
      'created_at',
      'updated_at',
      'completed_at',
      'summary',
      'current_step',
      'steps',
      'received_outputs',
      'plan_mode',
    ]);
  });

  it('shows a step as a decided plan_modify changed it', () => {
    const asked = requestApproval(build(), IMPL.summary, 'owner-or-user', T0).plan;
    const running = decideApproval(asked, true, { by: 'u', role: 'user' }, T0).plan;
    const change = { step_id: 1, reason: 'r', new_description: 'Rename', new_files: ['db/new.sql'] };
    const requested = requestModification(running, { ...change, new_verification: 'make db' }, 'main', T0).plan;
    const decided = decideModification(requested, true, { by: 'u', role: 'user' }, T0).plan;
    expect(planView(decided).plan_mode?.steps[0]).toEqual({
      step_id: 'step_1',
      id: 1,
      files: ['db/new.sql'],
      depends_on: [],
      verification: 'make db',
    });
  });

  it('adds nothing to a plan of another dialect', () => {
    const plan = newPlan({
      plan_id: 'p2',
      workspace: 'ws',
      agent_id: 'main',
      title: 'Ship',
      dialect: '000',
      steps: [{ description: 'a' }],
      now: T0,
    });
    expect('plan_mode' in planView(plan)).toBe(false);
  });
});
