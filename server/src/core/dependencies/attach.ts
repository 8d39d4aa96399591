import type { DependencyDisplay, DependencyRef, NewEvent, Plan, Step, Waiter } from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';
import { clonePlan } from '../plans/plan-factory.ts';
import { planEvent } from '../plans/plan-events.ts';
import { findStep } from '../plans/plan-guards.ts';
import type { DependencyEdges, GraphWork } from './graph.ts';
import { DependencyGraph, cycleCheckFrom } from './graph.ts';
import { dependencyNode, describeNode, pendingNode, stepNode } from './nodes.ts';
import { deliveredValue, dependencyKey, unblockedEvent } from './resolve.ts';

export { stepNode } from './nodes.ts';

/** Where a dependency points, found by the caller: the plan that holds the step (any agent's) and the step. */
export interface DependencyTarget {
  plan: Plan;
  step_id: string;
  /** What the caller said about the target for display, kept on the dependency as given. */
  display?: DependencyDisplay;
}

/**
 * A dependency on a step that does not exist yet: of an agent with no plan that has it (`plan` absent: it matches
 * that agent's step in any of its plans, later ones included), or of a named plan that lacks it so far.
 */
export interface FutureTarget {
  future: true;
  agent_id: string;
  step_id: string;
  plan?: Plan | undefined;
  display?: DependencyDisplay;
}

export type AnyTarget = DependencyTarget | FutureTarget;

export const isFuture = (t: AnyTarget): t is FutureTarget => 'future' in t;

/**
 * What a target step hands its dependents right now, or undefined while it still runs. A step left open in a plan
 * that finished (a rejected plan) will never end, so it counts as skipped rather than leaving the waiter hanging.
 */
export const endedOutcome = (plan: Plan, step: Step): Step | undefined => {
  if (ENDED_STEP_STATUSES.has(step.status)) return step;
  if (FINISHED_PLAN_STATUSES.has(plan.status)) return { ...step, status: 'skipped', result: `plan ${plan.status}` };
  return undefined;
};

/** A wait on another plan's step: kept by the target's node, resolved by the fan-in of the waiting step. */
export interface Registration {
  /** The target step's node. */
  target: string;
  /** The plan holding the target, whose waiter count it joins; absent for a step of no plan yet (its own budget). */
  plan_id?: string | undefined;
  waiter: Waiter;
}

export interface AttachOutcome {
  /** The waiting plan, changed (a wait on a step of the same plan is kept in its `waiters`). */
  plan: Plan;
  step: Step;
  /** Waits on other plans' steps, for their waiter lists and the step's outstanding set. */
  registrations: Registration[];
  /** Every edge added (other plans and the same plan), for the graph the cycle check walks. */
  newEdges: Array<{ from: string; to: string }>;
  events: NewEvent[];
  /** Dependencies that had already ended and were resolved at once (no lost wake-up). */
  resolvedNow: DependencyRef[];
  /** Dependencies the step now waits for that it did not wait for before. */
  added: DependencyRef[];
  /** The status of a step that was in progress or ended and waits now; undefined otherwise. */
  reopened?: Step['status'];
}

/** Two references are the same when agent, step and plan (or its absence) all match. */
const refKey = (ref: DependencyRef): string =>
  JSON.stringify(ref.plan_id === undefined ? [ref.agent_id, ref.step_id] : [ref.agent_id, ref.step_id, ref.plan_id]);

const sameWaiter = (a: Waiter, b: Waiter) =>
  a.agent_id === b.agent_id && a.plan_id === b.plan_id && a.step_id === b.step_id;

const describeCycle = (path: readonly string[], owners: ReadonlyMap<string, string>): string =>
  path.map((node) => describeNode(node, owners)).join(' → ');

/**
 * Makes `stepId` of the waiting plan depend on `targets` (the engine's "add"). Every target that already ended is
 * resolved at once; every other one is registered as a waiter on its target step and as an edge of the workspace
 * graph (`edges`: at least every edge reachable from the targets), refusing any edge that would close a cycle. Adding a dependency the step already waits on changes nothing,
 * so a step never has two waiters for one dependency.
 */
export const attachDependencies = (
  waiting: Plan,
  stepId: string,
  targets: readonly AnyTarget[],
  edges: DependencyEdges,
  now: string,
  work: GraphWork = { steps: 0 },
): AttachOutcome => {
  const plan = clonePlan(waiting);
  const step = findStep(plan, stepId);
  const before = step.status;
  // A target in the waiting plan is the copy this call changes; another plan is read only, each target as it was
  // read (two targets of one plan may each hold only their own step).
  const holderOf = (target: Plan): Plan => (target.plan_id === plan.plan_id ? plan : target);
  const owners = new Map<string, string>([[plan.plan_id, plan.agent_id]]);
  const from = stepNode(plan.plan_id, step.id);
  // A wait on "this agent's step of this id, in any plan" reaches this step: the cycle check follows that alias.
  const alias = { from: pendingNode(plan.agent_id, step.id), to: from };
  // Built once, grown in place: every edge this call adds leaves `from`, so the checks share one walk.
  const graph = new DependencyGraph(edges, work);
  graph.add(alias.from, alias.to);
  const closesCycle = cycleCheckFrom(graph, from, work);
  const registrations: Registration[] = [];
  const newEdges: Array<{ from: string; to: string }> = [];
  const resolvedNow: DependencyRef[] = [];
  const added: DependencyRef[] = [];
  const events: NewEvent[] = [];

  const refuseCycle = (ref: DependencyRef, to: string) => {
    const cycle = closesCycle(to);
    if (cycle)
      fail(
        'FAILED_PRECONDITION',
        `Refused: ${plan.agent_id}:${step.id} waiting on ${ref.agent_id}:${ref.step_id} would close a dependency ` +
          `cycle (${describeCycle(cycle, owners)}), and no step in a cycle could ever unblock. ` +
          'Restructure the work so the dependencies run one way.',
      );
    graph.add(from, to);
    newEdges.push({ from, to });
  };
  // received_outputs holds one value per "<agent_id>:<step_id>" (the seed's key): a step waiting on one agent's step
  // of one id in two plans would keep only the output that ended last.
  // What the step waits on and depends on, indexed once (each target looks up, never scans): the references, and
  // per "<agent_id>:<step_id>" the first two plans it names, enough to find one other than any given plan.
  const waitingOn = new Set((step.blocked_by ?? []).map(refKey));
  const dependsOn = new Set<string>();
  const namedPlans = new Map<string, string[]>();
  const noteDependency = (ref: DependencyRef) => {
    dependsOn.add(refKey(ref));
    if (ref.plan_id === undefined) return;
    const plans = namedPlans.get(dependencyKey(ref));
    if (plans === undefined) namedPlans.set(dependencyKey(ref), [ref.plan_id]);
    else if (plans.length < 2 && !plans.includes(ref.plan_id)) plans.push(ref.plan_id);
  };
  for (const d of step.depends_on ?? []) noteDependency(d);
  const dependOn = (ref: DependencyRef) => {
    if (dependsOn.has(refKey(ref))) return;
    (step.depends_on ??= []).push(ref);
    noteDependency(ref);
  };
  const refuseSameKey = (ref: DependencyRef) => {
    // Only two named plans clash for sure: a wait on "any plan" may well be the same step.
    if (ref.plan_id === undefined) return;
    const clash = namedPlans.get(dependencyKey(ref))?.find((planId) => planId !== ref.plan_id);
    if (clash === undefined) return;
    fail(
      'INVALID_ARGUMENT',
      `${plan.agent_id}:${step.id} already depends on ${dependencyKey(ref)} in plan ${clash}, and cannot also ` +
        `depend on it in plan ${ref.plan_id}: received_outputs keeps one value per "<agent_id>:<step_id>", so one of the ` +
        'two outputs would be lost. Depend on the step of one plan only, or on steps with different ids.',
    );
  };
  const wait = (ref: DependencyRef, holder: Plan | undefined, to: string) => {
    (step.blocked_by ??= []).push(ref);
    waitingOn.add(refKey(ref));
    const waiter: Waiter = { agent_id: plan.agent_id, plan_id: plan.plan_id, step_id: step.id };
    if (holder === plan) {
      const list = plan.waiters[ref.step_id] ?? [];
      if (!list.some((w) => sameWaiter(w, waiter))) plan.waiters[ref.step_id] = [...list, waiter];
    } else registrations.push({ target: to, plan_id: holder?.plan_id, waiter });
    added.push(ref);
  };

  for (const target of targets) {
    if (isFuture(target)) {
      const holder = target.plan && holderOf(target.plan);
      if (holder) owners.set(holder.plan_id, holder.agent_id);
      const ref: DependencyRef = {
        agent_id: target.agent_id,
        step_id: target.step_id,
        ...(holder ? { plan_id: holder.plan_id } : {}),
        ...target.display,
      };
      if (waitingOn.has(refKey(ref))) continue;
      refuseSameKey(ref);
      dependOn(ref);
      const to = dependencyNode(ref);
      refuseCycle(ref, to);
      wait(ref, holder, to);
      continue;
    }
    // Only the waiting plan changes: a wait on another plan is a registration, never a write to that plan.
    const holder = holderOf(target.plan);
    owners.set(holder.plan_id, holder.agent_id);
    const targetStep = findStep(holder, target.step_id);
    const ref: DependencyRef = {
      agent_id: holder.agent_id,
      plan_id: holder.plan_id,
      step_id: targetStep.id,
      ...target.display,
    };
    if (waitingOn.has(refKey(ref))) continue;
    refuseSameKey(ref);
    dependOn(ref);
    const ended = endedOutcome(holder, targetStep);
    if (ended) {
      const value = deliveredValue(ended);
      // The plan is this call's own copy: its step's outputs are changed in place, not copied per target.
      const received = (step.received_outputs ??= {});
      received[dependencyKey(ref)] = value;
      if (ended.provides !== undefined) received[ended.provides] = value;
      resolvedNow.push(ref);
      continue;
    }
    const to = stepNode(holder.plan_id, targetStep.id);
    refuseCycle(ref, to);
    wait(ref, holder, to);
  }

  if (added.length > 0 || resolvedNow.length > 0) plan.updated_at = now;
  if (added.length > 0) newEdges.push(alias);
  const last = resolvedNow.at(-1);
  if (added.length === 0 && last && (step.blocked_by ?? []).length === 0) {
    // Ready at once, yet announced like any other unblock: a waiting agent has one wake-up to wait for, always. A
    // step in progress or ended had nothing to wait for, so it keeps its status.
    if (step.status === 'blocked') step.status = 'pending';
    events.push(unblockedEvent(plan, step, last, now));
  }
  if (added.length > 0) {
    // Upstream attaches to a step in any status. A step that waits is blocked whatever it was (the engine resolves
    // blocked steps only, and a blocked step is not completed by hand); an ended one is reopened, as a step reported
    // again is, and its own dependents that resolved on its earlier outcome stay resolved.
    step.status = 'blocked';
    if (ENDED_STEP_STATUSES.has(before)) delete step.completed_at;
    events.push(
      planEvent(plan, 'step_blocked', step, { blocked_by: step.blocked_by ?? [], depends_on: step.depends_on }, now),
    );
  }
  return {
    plan,
    step,
    registrations,
    newEdges,
    events,
    resolvedNow,
    added,
    ...(added.length > 0 && before !== 'pending' && before !== 'blocked' ? { reopened: before } : {}),
  };
};
