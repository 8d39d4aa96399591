import type { ImplementationPlan, Plan } from '@planhub/shared';
import { ImplementationPlanSchema, PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { checkPlanSteps, planFromImplementationPlan } from '../src/core/plan-mode/build-plan.ts';
import {
  blockedToolsIn,
  deriveMode,
  findPlanModeStep,
  planModeProgress,
  planModeStepView,
} from '../src/core/plan-mode/mode.ts';
import { decideModification, requestModification } from '../src/core/plan-mode/modification.ts';
import { planModeId } from '../src/core/plan-mode/plan-id.ts';
import { renderPlanMarkdown } from '../src/core/plan-mode/plan-markdown.ts';
import { completePlanModeStep, openSteps } from '../src/core/plan-mode/step-complete.ts';
import { decideApproval, requestApproval } from '../src/core/plans/plan-lifecycle.ts';
import { applyResolution } from '../src/core/dependencies/resolve.ts';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-01T00:01:00.000Z';

const IMPL: ImplementationPlan = ImplementationPlanSchema.parse({
  summary: 'Sum',
  approach: 'How',
  steps: [
    { id: 10, description: 'ten', files: ['a.ts'], verification: 'npm test' },
    { id: 20, description: 'twenty', depends_on: [10] },
    { id: 30, description: 'thirty', depends_on: [10, 20, 10] },
  ],
  risks: ['r'],
});

const build = (impl: ImplementationPlan = IMPL): Plan =>
  planFromImplementationPlan({ plan_id: 'p1', workspace: 'ws', agent_id: 'main', goal: 'Goal', plan: impl, now: T0 });

const running = (): Plan =>
  decideApproval(requestApproval(build(), undefined, 'owner-or-user', T0).plan, true, { by: 'u', role: 'user' }, T0)
    .plan;

const errorOf = (fn: () => unknown): PlanHubError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanHubError) return err;
    throw err;
  }
  throw new Error('expected a PlanHubError');
};

describe('002 plan mode core', () => {
  it('derives the mode from the stored goal and the status of the plan plan_exit made', () => {
    const plan = build();
    expect(deriveMode(undefined, undefined)).toBe('normal');
    expect(deriveMode({ goal: 'g', entered_at: T0 }, undefined)).toBe('plan');
    const doc = { goal: 'g', entered_at: T0, plan_id: 'p1' };
    expect(deriveMode(doc, { ...plan, status: 'awaiting_approval' })).toBe('awaiting_approval');
    expect(deriveMode(doc, { ...plan, status: 'in_progress' })).toBe('executing');
    for (const status of ['completed', 'failed', 'cancelled', 'rejected'] as const)
      expect(deriveMode(doc, { ...plan, status })).toBe('normal');
    expect(blockedToolsIn('plan')).toEqual(['write_file', 'cron_create', 'cron_delete']);
    expect(blockedToolsIn('awaiting_approval')).toEqual([]);
    expect(blockedToolsIn('executing')).toEqual([]);
    expect(blockedToolsIn('normal')).toEqual([]);
  });

  it('turns the plan object into a plan whose dependent steps are blocked and registered as waiters', () => {
    const plan = build();
    expect(plan).toMatchObject({ dialect: '002', title: 'Goal', status: 'pending' });
    expect(plan.details).toMatchObject({ goal: 'Goal', plan: { summary: 'Sum', approach: 'How', risks: ['r'] } });
    expect(plan.steps.map((s) => [s.id, s.status, s.details?.id])).toEqual([
      ['step_1', 'pending', 10],
      ['step_2', 'blocked', 20],
      ['step_3', 'blocked', 30],
    ]);
    expect(plan.steps[0]?.details).toEqual({ id: 10, files: ['a.ts'], verification: 'npm test' });
    expect(plan.steps[2]?.blocked_by?.map((d) => d.step_id)).toEqual(['step_1', 'step_2']);
    expect(plan.waiters).toEqual({
      step_1: [
        { agent_id: 'main', plan_id: 'p1', step_id: 'step_2' },
        { agent_id: 'main', plan_id: 'p1', step_id: 'step_3' },
      ],
      step_2: [{ agent_id: 'main', plan_id: 'p1', step_id: 'step_3' }],
    });
  });

  it('refuses unknown and self dependencies and cycles of any length, and accepts repeated ids as upstream does', () => {
    const s = (id: number, depends_on: number[] = []) => ({ id, description: 'd', depends_on });
    expect(() => checkPlanSteps([s(1), s(1)])).not.toThrow();
    expect(errorOf(() => checkPlanSteps([s(1, [2])])).message).toMatch(/depends_on 2, which is not a step/);
    expect(errorOf(() => checkPlanSteps([s(1, [1])])).message).toMatch(/cannot depend on itself/);
    expect(errorOf(() => checkPlanSteps([s(1, [3]), s(2, [1]), s(3, [2])])).message).toMatch(/cycle \(/);
    expect(() => checkPlanSteps([s(1), s(2, [1]), s(3, [1, 2])])).not.toThrow();
  });

  it('finds steps by their plan number first, by step_N for steps other dialects added', () => {
    const plan = running();
    plan.steps.push({ id: 'step_4', step_id: 'step_4', sequence: 4, description: 'added', status: 'pending' });
    expect(findPlanModeStep(plan, 20).id).toBe('step_2');
    expect(findPlanModeStep(plan, 4).id).toBe('step_4');
    expect(errorOf(() => findPlanModeStep(plan, 2))).toMatchObject({ code: 'NOT_FOUND' });
    expect(errorOf(() => findPlanModeStep(plan, 2)).message).toMatch(/its steps are 10, 20, 30, 4/);
  });

  it('completes a ready step, refuses unready, duplicate and under-modification ones', () => {
    const plan = running();
    expect(errorOf(() => completePlanModeStep(plan, 20, 'v', T1)).message).toMatch(
      /Step 20 depends on step 10 \(pending\)/,
    );
    const done = completePlanModeStep(plan, 10, 'all green', T1);
    expect(done.step).toMatchObject({ status: 'completed', result: 'all green' });
    expect(done.step.details).toMatchObject({ verification_result: 'all green' });
    expect(done.events.map((e) => e.event_type)).toEqual(['step_completed']);
    expect(errorOf(() => completePlanModeStep(done.plan, 10, 'v', T1)).message).toBe('Step 10 already completed.');
    // What settleDependents does for a waiter of the same plan: step 20 becomes ready.
    expect(applyResolution(done.plan, 'step_2', { agent_id: 'main', plan_id: 'p1', step: done.step }, T1)).toHaveLength(
      1,
    );
    expect(planModeProgress(done.plan)).toEqual({ total_steps: 3, completed_steps: 1, next_step: 20 });
    const modified = requestModification(done.plan, { step_id: 20, reason: 'r', new_description: 'new' }, 'main', T1);
    expect(errorOf(() => completePlanModeStep(modified.plan, 20, 'v', T1)).message).toMatch(/modification waiting/);
    expect(openSteps(modified.plan).map((s) => s.id)).toEqual(['step_2', 'step_3']);
  });

  it('holds one pending modification until decided; approval applies it, rejection keeps the step', () => {
    const plan = running();
    const asked = requestModification(
      plan,
      {
        step_id: 30,
        reason: 'why',
        new_description: 'thirty v2',
        new_files: ['b.ts'],
        new_verification: 'npm run e2e',
      },
      'main',
      T1,
    );
    expect(asked.plan.steps[2]?.description).toBe('thirty');
    expect(asked.events[0]).toMatchObject({
      event_type: 'plan_modified',
      payload: { state: 'requested', step_id: 30 },
    });
    expect(
      errorOf(() => requestModification(asked.plan, { step_id: 10, reason: 'r', new_description: 'x' }, 'main', T1))
        .message,
    ).toMatch(/modification of step 30 is already waiting/);
    const approved = decideModification(asked.plan, true, { by: 'alice', role: 'user' }, T1);
    expect(approved.plan.steps[2]).toMatchObject({
      description: 'thirty v2',
      details: { files: ['b.ts'], verification: 'npm run e2e' },
    });
    expect(approved.plan.details?.pending_modification).toBeUndefined();
    expect(approved.plan.details?.modifications).toMatchObject([
      { step_id: 30, decision: 'approved', decided_by: 'alice' },
    ]);
    expect(approved.events[0]).toMatchObject({ source_agent: 'alice', payload: { state: 'approved' } });
    const rejected = decideModification(asked.plan, false, { by: 'alice', role: 'user', reason: 'no' }, T1);
    expect(rejected.plan.steps[2]?.description).toBe('thirty');
    expect(errorOf(() => decideModification(rejected.plan, true, { by: 'a', role: 'user' }, T1)).code).toBe(
      'FAILED_PRECONDITION',
    );
    // A step that ended may be changed too, as upstream changes any step; its status stays.
    const ended = completePlanModeStep(plan, 10, 'v', T1).plan;
    const late = requestModification(ended, { step_id: 10, reason: 'r', new_description: 'x' }, 'main', T1);
    const applied = decideModification(late.plan, true, { by: 'a', role: 'user' }, T1);
    expect(applied.step).toMatchObject({ description: 'x', status: 'completed' });
  });

  it("fills upstream's defaults into a minimal plan: empty lists, complexity medium (also for an unknown one)", () => {
    const minimal = ImplementationPlanSchema.parse({
      summary: 's',
      approach: 'a',
      steps: [{ id: 1, description: 'd' }],
    });
    expect(minimal).toMatchObject({
      alternatives_considered: [],
      risks: [],
      files_to_create: [],
      files_to_modify: [],
      tests_to_write: [],
      estimated_complexity: 'medium',
    });
    expect(ImplementationPlanSchema.parse({ ...minimal, estimated_complexity: 'huge' }).estimated_complexity).toBe(
      'medium',
    );
    expect(ImplementationPlanSchema.parse({ ...minimal, estimated_complexity: 'large' }).estimated_complexity).toBe(
      'large',
    );
    expect(build(minimal).details).toMatchObject({ plan: { risks: [], estimated_complexity: 'medium' } });
  });

  it('shows an approved modification applied to the step: description, files and verification', () => {
    const asked = requestModification(
      running(),
      {
        step_id: 10,
        reason: 'r',
        new_description: 'ten again',
        new_files: ['b.ts'],
        new_verification: 'deno task check',
      },
      'main',
      T1,
    );
    const decided = decideModification(asked.plan, true, { by: 'alice', role: 'user' }, T1);
    expect(planModeStepView(findPlanModeStep(decided.plan, 10))).toEqual({
      id: 10,
      description: 'ten again',
      files: ['b.ts'],
      verification: 'deno task check',
      status: 'pending',
    });
    expect(planModeStepView(findPlanModeStep(decided.plan, 20))).toMatchObject({ files: [], verification: null });
  });

  it("renders the plan as Markdown for the user who decides it, as upstream's plan files read", () => {
    const text = renderPlanMarkdown(
      requestApproval(
        build({ ...IMPL, files_to_create: ['a.ts'], estimated_complexity: 'large' }),
        undefined,
        'owner-or-user',
        T0,
      ).plan,
    );
    // Upstream's formatPlanAsMarkdown, line for line: every section even when empty, each step's four lines.
    expect(text).toBe(
      [
        '# Implementation Plan: Goal',
        '',
        '**Status:** Pending Approval',
        `**Created:** ${T0}`,
        '**Plan ID:** p1',
        '',
        '## Summary',
        'Sum',
        '',
        '## Approach',
        'How',
        '',
        '## Alternatives Considered',
        '- None considered',
        '',
        '## Steps',
        '',
        '- [ ] **Step 10:** ten',
        '  - Files: a.ts',
        '  - Depends on: —',
        '  - Verify: `npm test`',
        '',
        '- [ ] **Step 20:** twenty',
        '  - Files: (none)',
        '  - Depends on: Step 10',
        '  - Verify: `(none)`',
        '',
        '- [ ] **Step 30:** thirty',
        '  - Files: (none)',
        '  - Depends on: Step 10, Step 20, Step 10',
        '  - Verify: `(none)`',
        '',
        '## Files Affected',
        '- **Create:**',
        '- a.ts',
        '- **Modify:**',
        '- None',
        '- **Tests:**',
        '- None',
        '',
        '## Risks',
        '- r',
        '',
        '## Estimated Complexity',
        'large',
        '',
      ].join('\n'),
    );
    expect(renderPlanMarkdown(running())).toContain('**Status:** Approved');
  });

  it('names plan_exit plans the way upstream does: plan_, the day, then a random part', () => {
    expect(planModeId('2026-03-30T10:00:00.000Z', 'ab12cd34')).toBe('plan_2026-03-30_ab12cd34');
  });
});
