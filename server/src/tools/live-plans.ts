import type { Plan } from '@planhub/shared';
import { stepNode } from '../core/dependencies/attach.ts';
import { dependencyNode } from '../core/dependencies/nodes.ts';
import { isSamePlan, liveStep } from '../core/dependencies/fan-in.ts';
import { hashKeys, setKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { corruptHashEntry } from '../store/corrupt-stored.ts';
import { loadStoredPlans, rememberRead } from './plan-repository.ts';

const waitsAcross = (plan: Plan, step: Plan['steps'][number]) =>
  step.status === 'blocked' && (step.blocked_by ?? []).some((d) => !isSamePlan(plan, d));

/** A received-outputs hash (field: JSON-encoded key, value: JSON) as an object; `key` names it if an entry is not. */
export const decodeReceived = (hash: Readonly<Record<string, string>>, key: string): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(hash).map(([k, v]) => {
      try {
        return [JSON.parse(k) as string, JSON.parse(v) as unknown];
      } catch {
        throw corruptHashEntry(key, k, 'not JSON');
      }
    }),
  );

export const encodeReceived = (values: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)]));

/**
 * Plans as their steps' live dependency state shows them: a step blocked on other plans' steps is read with its
 * outstanding set and received outputs (one extra round trip, only when some step waits across plans). Deliveries
 * never write the waiting plan, so fan-ins never conflict with its owner; its next write stores what is shown here.
 */
export const livePlans = async <P extends Plan | undefined>(tx: Tx, plans: readonly P[]): Promise<P[]> => {
  const nodes = plans.flatMap((plan) =>
    plan ? plan.steps.filter((s) => waitsAcross(plan, s)).map((s) => stepNode(plan.plan_id, s.id)) : [],
  );
  if (nodes.length === 0) return [...plans];
  const { sets, hashes } = await tx.collections({
    sets: nodes.map(setKeys.outstanding),
    hashes: nodes.map(hashKeys.received),
  });
  const state = new Map(
    nodes.map((node, i) => [
      node,
      { outstanding: new Set(sets[i]), received: decodeReceived(hashes[i] ?? {}, hashKeys.received(node)) },
    ]),
  );
  return plans.map((plan) => {
    if (!plan || !plan.steps.some((s) => waitsAcross(plan, s))) return plan;
    const steps = plan.steps.map((s) => {
      const live = state.get(stepNode(plan.plan_id, s.id));
      return live && waitsAcross(plan, s) ? liveStep(s, live.outstanding, live.received, dependencyNode) : s;
    });
    return { ...plan, steps };
  });
};

/**
 * Plans by id (undefined where missing), live. Their headers are checked at the commit, their steps only where the
 * call writes them (savePlan writes what changed since this read).
 */
export const readPlans = async (tx: Tx, planIds: readonly string[]): Promise<Array<Plan | undefined>> => {
  const stored = await loadStoredPlans(tx, planIds);
  const plans = await livePlans(tx, stored.plans);
  rememberRead(tx, plans, stored.whole);
  return plans;
};

export const readPlan = async (tx: Tx, planId: string): Promise<Plan | undefined> => (await readPlans(tx, [planId]))[0];
