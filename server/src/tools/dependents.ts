import type { Plan, Step, Waiter } from '@planhub/shared';
import { stepNode } from '../core/dependencies/attach.ts';
import { removeEdge } from '../core/dependencies/graph.ts';
import { applyResolution } from '../core/dependencies/resolve.ts';
import { docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { loadEdges, saveEdges } from './dependency-graph-doc.ts';
import { savePlan } from './plan-access.ts';

/**
 * Runs inside the transaction that ended `step`: the lookup of who waits on it, their resolution and the removal of
 * the resolved graph edges commit together with the completion, so no node can die between them and lose a wake-up.
 * `target` is mutated (waiters removed); the caller saves it. A step that ends while still blocked (failed or skipped
 * by its owner) stops waiting, so its own edges go too.
 */
export const settleDependents = async (tx: Tx, target: Plan, step: Step, now: string): Promise<Waiter[]> => {
  const waiters = target.waiters[step.id] ?? [];
  const waitedOn = step.blocked_by ?? [];
  if (waiters.length === 0 && waitedOn.length === 0) return [];
  const self = stepNode(target.plan_id, step.id);
  const before = await loadEdges(tx);
  let edges = before;
  for (const d of waitedOn)
    if (d.plan_id !== undefined) edges = removeEdge(edges, self, stepNode(d.plan_id, d.step_id));
  for (const w of waiters) edges = removeEdge(edges, stepNode(w.plan_id, w.step_id), self);
  saveEdges(tx, before, edges);
  if (waiters.length === 0) return [];

  delete target.waiters[step.id];
  const byPlan = new Map<string, Waiter[]>();
  for (const w of waiters) {
    const list = byPlan.get(w.plan_id) ?? [];
    if (!list.some((x) => x.step_id === w.step_id)) list.push(w);
    byPlan.set(w.plan_id, list);
  }
  const unblocked: Waiter[] = [];
  for (const [planId, planWaiters] of byPlan) {
    // A plan waiting on another step of its own plan is the target itself.
    const stored = planId === target.plan_id ? target : await tx.get<Plan>(docKeys.plan(planId));
    if (!stored) continue;
    // A waiting step that already ended (its owner gave up on it, or its plan finished) is left as it is.
    const live = planWaiters.filter((w) => stored.steps.find((s) => s.id === w.step_id)?.status === 'blocked');
    if (live.length === 0) continue;
    const plan = stored === target ? target : structuredClone(stored);
    for (const w of live) {
      const events = applyResolution(
        plan,
        w.step_id,
        { agent_id: target.agent_id, plan_id: target.plan_id, step },
        now,
      );
      if (events.some((e) => e.event_type === 'step_unblocked')) unblocked.push(w);
      tx.emit(...events);
    }
    if (plan !== target) await savePlan(tx, plan);
  }
  return unblocked;
};
