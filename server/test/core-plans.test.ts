import type { Plan } from '@planhub/shared';
import { PlanHubError, progressOf, renderPlanText } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { addStep } from '../src/core/plans/add-step.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { decideApproval, endPlan, requestApproval } from '../src/core/plans/plan-lifecycle.ts';
import { noCurrentPlanMessage } from '../src/core/plans/no-plan.ts';
import { changeStepStatus } from '../src/core/plans/step-status.ts';
import { applyResolution } from '../src/core/dependencies/resolve.ts';

const NOW = '2026-01-01T00:00:00.000Z';

const plan = (
  steps = ['Review current auth implementation', 'Extract token validation', 'Add unit tests', 'Update imports'],
) =>
  newPlan({
    plan_id: 'abcd1234',
    workspace: 'ws',
    agent_id: 'main',
    title: 'Refactor auth module',
    dialect: '000',
    steps: steps.map((description) => ({ description })),
    now: NOW,
  });

const started = (p: Plan = plan()) => {
  const requested = requestApproval(p, undefined, 'owner-or-user', NOW).plan;
  return decideApproval(requested, true, { by: 'main', role: 'agent' }, NOW).plan;
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof PlanHubError ? err.code : 'not a PlanHubError';
  }
  return 'no error';
};

describe('seed 000 plans', () => {
  it('refuses step updates, addStep and completion before the plan is approved', () => {
    const p = plan();
    expect(codeOf(() => changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW))).toBe(
      'FAILED_PRECONDITION',
    );
    expect(codeOf(() => addStep(p, { description: 'x' }, NOW))).toBe('FAILED_PRECONDITION');
    expect(() => changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW)).toThrow(
      /Plan not started\. Call startPlan first/,
    );
    const awaiting = requestApproval(p, 'ok?', 'owner-or-user', NOW).plan;
    expect(awaiting.status).toBe('awaiting_approval');
    expect(codeOf(() => changeStepStatus(awaiting, { step_id: 'step_1', status: 'in_progress' }, NOW))).toBe(
      'FAILED_PRECONDITION',
    );
  });

  it('starts at once under the auto policy and emits approved then started', () => {
    const { plan: p, events } = requestApproval(plan(), undefined, 'auto', NOW);
    expect(p.status).toBe('in_progress');
    expect(events.map((e) => e.event_type)).toEqual(['plan_approved', 'plan_started']);
  });

  it("answers a retry of the startPlan that started the plan, and refuses a new one with upstream's words", () => {
    const { plan: started } = requestApproval(plan(), undefined, 'auto', NOW, 'req-1');
    const retried = requestApproval(started, undefined, 'auto', NOW, 'req-1');
    expect(retried).toEqual({ plan: started, events: [] });
    expect(() => requestApproval(started, undefined, 'auto', NOW, 'req-2')).toThrow(
      /^Plan already started\. Proceed with setStepStatus\./,
    );
    expect(() => requestApproval(started, undefined, 'auto', NOW)).toThrow(/^Plan already started/);
  });

  it('refuses to complete a never-started plan and lets it be cancelled', () => {
    expect(codeOf(() => endPlan(plan(), 'completed', undefined, NOW))).toBe('FAILED_PRECONDITION');
    expect(endPlan(plan(), 'cancelled', 'not needed', NOW).plan.status).toBe('cancelled');
  });

  it('computes progress as the superset with a one-decimal percentage', () => {
    let p = started(plan(['a', 'b', 'c']));
    p = changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW).plan;
    p = changeStepStatus(p, { step_id: 'step_2', status: 'failed', error: 'no' }, NOW).plan;
    expect(progressOf(p.steps)).toEqual({
      completed: 1,
      total: 3,
      percentage: 33.3,
      percent: 33.3,
      failed: 1,
      skipped: 0,
      in_progress: 0,
      pending: 1,
      blocked: 0,
    });
  });

  it('re-sequences later steps when addStep inserts after a step, and never reuses ids', () => {
    const p = started();
    const { plan: p2, step } = addStep(p, { description: 'New step', after_step_id: 'step_1' }, NOW);
    expect(step).toMatchObject({ id: 'step_5', sequence: 2 });
    expect(p2.steps.map((s) => `${s.id}@${s.sequence}`)).toEqual([
      'step_1@1',
      'step_5@2',
      'step_2@3',
      'step_3@4',
      'step_4@5',
    ]);
    expect(codeOf(() => addStep(p, { description: 'x', after_step_id: 'step_9' }, NOW))).toBe('NOT_FOUND');
  });

  it('warns when a completed result reads like a failure, and still applies it', () => {
    const out = changeStepStatus(
      started(),
      {
        step_id: 'step_4',
        status: 'completed',
        result: 'Unable to update 2 of 5 imports due to circular dependencies',
      },
      NOW,
    );
    expect(out.step.status).toBe('completed');
    expect(out.warning).toMatch(/must be reported as "failed"/);
    const honest = changeStepStatus(
      started(),
      { step_id: 'step_1', status: 'completed', result: 'Found 3 auth-related files' },
      NOW,
    );
    expect(honest.warning).toBeUndefined();
  });

  it('tells the model what to do next', () => {
    let p = started(plan(['a', 'b']));
    const first = changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW);
    expect(first.instruction).toBe('Step completed. Proceed immediately to next step: b (step_2).');
    p = first.plan;
    const failed = changeStepStatus(p, { step_id: 'step_2', status: 'failed', error: 'x' }, NOW);
    expect(failed.instruction).toMatch(/^Step failed\. Decide whether to: .*Do NOT recreate the plan.*step_2 failed/);
    const done = changeStepStatus(p, { step_id: 'step_2', status: 'skipped' }, NOW);
    expect(done.instruction).toBe('Step skipped. All steps completed. Call completePlan to finalize.');
  });

  it("answers the last completion with upstream's sentence alone, and names what is still open otherwise", () => {
    const p = changeStepStatus(started(plan(['a', 'b', 'c'])), { step_id: 'step_1', status: 'completed' }, NOW).plan;
    const working = changeStepStatus(p, { step_id: 'step_2', status: 'in_progress' }, NOW).plan;
    const open = changeStepStatus(working, { step_id: 'step_3', status: 'completed' }, NOW);
    expect(open.instruction).toBe('Step completed. Continue with: step_2: b');
    const last = changeStepStatus(open.plan, { step_id: 'step_2', status: 'completed' }, NOW);
    expect(last.instruction).toBe('All steps completed. Call completePlan to finalize.');
  });

  it('refuses to complete a blocked step, and lets an ended one be reported again as upstream does', () => {
    const p = started();
    const step = p.steps[1];
    if (!step) throw new Error('fixture');
    step.status = 'blocked';
    step.blocked_by = [{ agent_id: 'sub', step_id: 'step_1', plan_id: 'x' }];
    expect(() => changeStepStatus(p, { step_id: 'step_2', status: 'completed' }, NOW)).toThrow(
      /blocked waiting on sub:step_1/,
    );
    const done = changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW).plan;
    const failed = changeStepStatus(done, { step_id: 'step_1', status: 'failed', error: 'regressed' }, NOW);
    expect(failed.step).toMatchObject({ status: 'failed', error: 'regressed' });
    expect(failed.events.map((e) => e.event_type)).toEqual(['step_failed']);
    const reopened = changeStepStatus(failed.plan, { step_id: 'step_1', status: 'in_progress' }, NOW);
    expect(reopened.step.status).toBe('in_progress');
    expect(reopened.step.completed_at).toBeUndefined();
    const pending = changeStepStatus(reopened.plan, { step_id: 'step_1', status: 'pending' }, NOW);
    expect(pending.events).toEqual([]);
    expect(pending.plan).toBe(reopened.plan);
  });

  it('applies a repeated status that brings a new result or output, and announces it again; a bare repeat is a no-op', () => {
    const done = changeStepStatus(started(), { step_id: 'step_1', status: 'completed', result: 'first' }, NOW);
    const later = '2026-01-01T00:05:00.000Z';
    const amended = changeStepStatus(done.plan, { step_id: 'step_1', status: 'completed', result: 'second' }, later);
    expect(amended.step).toMatchObject({ status: 'completed', result: 'second', completed_at: NOW });
    expect(amended.events.map((e) => [e.event_type, e.payload])).toEqual([
      ['step_completed', { result: 'second', error: null }],
    ]);
    // Dependents resolved on the first report keep it: a repeat is not a second end.
    expect(amended.ended).toBe(false);
    const output = changeStepStatus(amended.plan, { step_id: 'step_1', status: 'completed', output: { n: 1 } }, later);
    expect(output.step.output).toEqual({ n: 1 });
    expect(output.events[0]?.payload).toMatchObject({ output: { n: 1 } });
    const retry = changeStepStatus(output.plan, { step_id: 'step_1', status: 'completed', result: 'second' }, later);
    expect(retry.events).toEqual([]);
    expect(retry.plan).toBe(output.plan);
  });

  it('takes pending and blocked as no-ops, as upstream does, and says nothing changed', () => {
    const p = started();
    const blocked = changeStepStatus(p, { step_id: 'step_1', status: 'blocked' }, NOW);
    expect(blocked.events).toEqual([]);
    expect(blocked.plan).toBe(p);
    expect(blocked.step.status).toBe('pending');
    expect(blocked.warning).toMatch(/^Nothing changed: step_1 is still pending\..*addDependentStep\(step_id="step_1"/);
    const pending = changeStepStatus(p, { step_id: 'step_1', status: 'pending' }, NOW);
    expect(pending.events).toEqual([]);
    expect(pending.warning).toBeUndefined();
  });

  it("refuses a call without a current plan in upstream's words per tool, then points at the last plan", () => {
    expect(noCurrentPlanMessage('getPlanStatus', 'main')).toBe(
      'No plan found for this agent. Create a plan first with createPlan.',
    );
    expect(noCurrentPlanMessage('getPlanStatus', 'worker')).toBe(
      'No plan found for this agent (agent: worker). Create a plan first with createPlan.',
    );
    expect(noCurrentPlanMessage('getBlockedSteps', 'worker')).toBe(
      'No plan found. Create a plan first with createPlan.',
    );
    expect(noCurrentPlanMessage('setStepStatus', 'main')).toBe(
      'No active plan. Create a plan first with createPlan. (agent=main)',
    );
    expect(noCurrentPlanMessage('addStep', 'main', 'abcd1234')).toBe(
      'No active plan. Create a plan first with createPlan. Your last plan, abcd1234, has ended; read it with ' +
        'getPlanStatus(plan_id="abcd1234").',
    );
  });

  it('skips unfinished steps when a plan fails, so waiters can resolve', () => {
    const { plan: p, events } = endPlan(started(plan(['a', 'b'])), 'failed', 'gave up', NOW);
    expect(p.steps.map((s) => s.status)).toEqual(['skipped', 'skipped']);
    expect(events.map((e) => e.event_type)).toEqual(['step_skipped', 'step_skipped', 'plan_failed']);
  });

  it('renders the plan user command like the seed', () => {
    let p = started();
    p = changeStepStatus(p, { step_id: 'step_1', status: 'completed' }, NOW).plan;
    p = changeStepStatus(p, { step_id: 'step_2', status: 'completed' }, NOW).plan;
    p = changeStepStatus(p, { step_id: 'step_3', status: 'in_progress' }, NOW).plan;
    expect(renderPlanText(p)).toBe(
      [
        'Current Plan: Refactor auth module',
        'Status: in_progress',
        '',
        'Steps:',
        '  [x] step_1: Review current auth implementation',
        '  [x] step_2: Extract token validation',
        '  [>] step_3: Add unit tests',
        '  [ ] step_4: Update imports',
        '',
        'Progress: 2/4 (50%)',
      ].join('\n'),
    );
  });

  it('leaves the plan it was given untouched when a step changes and its waiters resolve on the copy', () => {
    const before = started(plan(['a', 'b']));
    const waiting = before.steps[1];
    if (!waiting) throw new Error('fixture');
    waiting.status = 'blocked';
    waiting.blocked_by = [{ agent_id: 'main', plan_id: 'abcd1234', step_id: 'step_1' }];
    before.waiters = { step_1: [{ agent_id: 'main', plan_id: 'abcd1234', step_id: 'step_2' }] };
    const snapshot = structuredClone(before);
    const { plan: after, step } = changeStepStatus(
      before,
      { step_id: 'step_1', status: 'completed', output: { ok: true } },
      NOW,
    );
    delete after.waiters.step_1;
    const events = applyResolution(after, 'step_2', { agent_id: 'main', plan_id: 'abcd1234', step }, NOW);
    expect(events.map((e) => e.event_type)).toEqual(['step_unblocked']);
    expect(after.steps[1]).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'main:step_1': { ok: true } },
    });
    expect(before).toEqual(snapshot);
  });
});
