import type { Plan } from '@planhub/shared';
import { ImplementationPlanSchema } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { planFromImplementationPlan } from '../src/core/plan-mode/build-plan.ts';
import {
  MODIFICATION_HISTORY_KEPT,
  decideModification,
  requestModification,
} from '../src/core/plan-mode/modification.ts';
import { renderPlanMarkdown } from '../src/core/plan-mode/plan-markdown.ts';
import { decideApproval, requestApproval } from '../src/core/plans/plan-lifecycle.ts';

const T0 = '2025-01-01T00:00:00.000Z';

const running = (): Plan => {
  const built = planFromImplementationPlan({
    plan_id: 'p1',
    workspace: 'ws',
    agent_id: 'main',
    goal: 'Goal',
    plan: ImplementationPlanSchema.parse({
      summary: 's',
      approach: 'a',
      steps: [
        { id: 1, description: 'one' },
        { id: 2, description: 'two', depends_on: [1] },
      ],
    }),
    now: T0,
  });
  return decideApproval(
    requestApproval(built, undefined, 'owner-or-user', T0).plan,
    true,
    { by: 'u', role: 'user' },
    T0,
  ).plan;
};

describe('002 plan_modify history', () => {
  it('keeps only the most recent decisions once more modifications than the limit were decided', () => {
    let plan = running();
    const total = MODIFICATION_HISTORY_KEPT + 25;
    for (let i = 0; i < total; i++) {
      plan = requestModification(plan, { step_id: 2, reason: `r${i}`, new_description: `two v${i}` }, 'main', T0).plan;
      plan = decideModification(plan, i % 2 === 0, { by: 'alice', role: 'user' }, T0).plan;
    }
    const history = plan.details?.modifications as Array<{ reason: string }>;
    expect(history).toHaveLength(MODIFICATION_HISTORY_KEPT);
    expect(history[0]?.reason).toBe(`r${total - MODIFICATION_HISTORY_KEPT}`);
    expect(history.at(-1)?.reason).toBe(`r${total - 1}`);
    expect(plan.details?.pending_modification).toBeUndefined();
    expect(plan.details?.pending_modification_step).toBeUndefined();
  });
});

describe('002 plan markdown', () => {
  it("prints upstream's dependency line for every step, an em dash for a step that waits on none", () => {
    const text = renderPlanMarkdown(running());
    expect(text).toContain('- [ ] **Step 1:** one\n  - Files: (none)\n  - Depends on: —');
    expect(text).toContain('- [ ] **Step 2:** two\n  - Files: (none)\n  - Depends on: Step 1');
  });

  it("names another agent's step a step waits on instead of the dash that would deny it", () => {
    const plan = running();
    const waiting = {
      ...plan,
      steps: plan.steps.map((s, i) =>
        i === 0 ? { ...s, depends_on: [{ agent_id: 'worker', step_id: 'step_4' }] } : s,
      ),
    };
    expect(renderPlanMarkdown(waiting)).toContain(
      "- [ ] **Step 1:** one\n  - Files: (none)\n  - Depends on: worker's step_4",
    );
  });
});
