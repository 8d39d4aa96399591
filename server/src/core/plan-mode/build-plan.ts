import type { DependencyRef, ImplementationPlan, Plan, PlanModeStep } from '@planhub/shared';
import { MAX_TITLE, fail } from '@planhub/shared';
import { stepNode } from '../dependencies/attach.ts';
import type { Edge, GraphWork } from '../dependencies/graph.ts';
import { firstClosingEdge } from '../dependencies/closing-edge.ts';
import { newPlan } from '../plans/plan-factory.ts';

/**
 * What plan_exit refuses before anything is written: dependencies on steps that do not exist or on the step itself,
 * and cycles (a plan whose steps wait on each other could never finish). Repeated ids are accepted, as upstream
 * accepts them: `depends_on: [n]` waits for every step carrying n, so the graph over ids is exactly the graph over
 * steps, and a cycle among ids is a cycle among steps. The dependencies are taken in order and the first one found
 * wrong is named, as checking each against the ones before it would; the cycle check does it for all of them at once
 * (`firstClosingEdge`), in work that grows with the plan's dependencies, not with their square.
 */
export const checkPlanSteps = (steps: readonly PlanModeStep[], work?: GraphWork): void => {
  const ids = new Set(steps.map((s) => s.id));
  const edges: Edge[] = [];
  let wrong: (() => never) | undefined;
  search: for (const step of steps) {
    for (const dep of step.depends_on ?? []) {
      if (dep === step.id) {
        wrong = () => fail('INVALID_ARGUMENT', `plan.steps: step ${step.id} cannot depend on itself.`);
        break search;
      }
      if (!ids.has(dep)) {
        wrong = () =>
          fail(
            'INVALID_ARGUMENT',
            `plan.steps: step ${step.id} depends_on ${dep}, which is not a step of this plan (ids: ${[...ids].join(', ')}).`,
          );
        break search;
      }
      edges.push({ from: String(step.id), to: String(dep) });
    }
  }
  // A cycle closed by a dependency before the first wrong one is named first, as it was found first.
  const closing = firstClosingEdge({}, edges, work);
  if (closing)
    fail(
      'INVALID_ARGUMENT',
      `plan.steps: the dependencies form a cycle (${closing.cycle.join(' → ')}); a step cannot wait on a step that waits on it.`,
    );
  wrong?.();
};

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export interface PlanModeInput {
  plan_id: string;
  workspace: string;
  agent_id: string;
  goal: string;
  scope?: string | undefined;
  plan: ImplementationPlan;
  now: string;
}

/**
 * The submitted implementation plan as a PlanHub plan (status pending; approval is requested next). Each step keeps
 * its 002 fields in `details`; `depends_on` becomes the shared dependency engine's edges within the plan (the step
 * is `blocked`, the plan lists it as a waiter), so the order holds in every dialect, not only in plan_step_complete.
 */
export const planFromImplementationPlan = (input: PlanModeInput): Plan => {
  checkPlanSteps(input.plan.steps);
  const { steps, ...rest } = input.plan;
  const plan = newPlan({
    plan_id: input.plan_id,
    workspace: input.workspace,
    agent_id: input.agent_id,
    title: clip(input.goal.replace(/\s+/g, ' '), MAX_TITLE),
    dialect: '002',
    now: input.now,
    details: { goal: input.goal, ...(input.scope !== undefined ? { scope: input.scope } : {}), plan: rest },
    steps: steps.map((s) => ({
      description: s.description,
      details: {
        id: s.id,
        ...(s.files !== undefined ? { files: s.files } : {}),
        ...(s.depends_on !== undefined ? { depends_on: s.depends_on } : {}),
        ...(s.verification !== undefined ? { verification: s.verification } : {}),
      },
    })),
  });
  // A repeated id names all its steps here: a step waits for every step carrying the id it depends on.
  const byNumber = new Map<number, string[]>();
  steps.forEach((s, i) => {
    const named = byNumber.get(s.id);
    if (named === undefined) byNumber.set(s.id, [plan.steps[i]!.id]);
    else named.push(plan.steps[i]!.id);
  });
  steps.forEach((source, i) => {
    const targets = [...new Set((source.depends_on ?? []).flatMap((d) => byNumber.get(d)!))];
    if (targets.length === 0) return;
    const step = plan.steps[i]!;
    const refs: DependencyRef[] = targets.map((id) => ({
      agent_id: plan.agent_id,
      plan_id: plan.plan_id,
      step_id: id,
    }));
    step.status = 'blocked';
    step.depends_on = refs;
    step.blocked_by = refs.map((r) => ({ ...r }));
    for (const ref of refs)
      (plan.waiters[ref.step_id] ??= []).push({ agent_id: plan.agent_id, plan_id: plan.plan_id, step_id: step.id });
  });
  return plan;
};

/**
 * The plan's within-plan edges added to the workspace dependency graph, so the cross-agent cycle check sees a path
 * that runs through them (another agent waiting on step 2 while step 1 waits on that agent).
 */
export const planEdges = (plan: Plan): Array<{ from: string; to: string }> =>
  plan.steps.flatMap((step) =>
    (step.blocked_by ?? []).flatMap((dep) =>
      dep.plan_id === undefined
        ? []
        : [{ from: stepNode(plan.plan_id, step.id), to: stepNode(dep.plan_id, dep.step_id) }],
    ),
  );
