import type { CallBudget } from '../store/call-budget.ts';
import type { Plan, Waiter } from '@planhub/shared';
import { documents } from '../store/documents/documents.ts';
import { docKeys, hashKeys, setKeys } from '../store/keys.ts';
import type { Store } from '../store/store.ts';
import type { Tx } from '../store/transaction.ts';
import { transact } from '../store/transact.ts';
import { encodeReceived, readPlans } from './live-plans.ts';
import { savePlan } from './plan-access.ts';
import { addWaiters, countWaiters, waiterSet } from './step-waiters.ts';

/** Workspaces seen without a legacy graph, per store: nothing writes one any more, so they stay upgraded. */
const upgraded = new WeakMap<Store, Set<string>>();

const planOf = (node: string) => node.slice(0, node.indexOf(':'));
const stepOf = (node: string) => node.slice(node.indexOf(':') + 1);

/**
 * Moves a workspace's dependency state from the one-document graph of earlier versions into the per-step keys, in
 * the transaction of the first call that reaches it (a running deployment upgrades in place; two nodes doing it at
 * once conflict on the legacy document and one re-runs). Each unresolved edge becomes a member of its waiting
 * step's edge set; an edge to another plan also becomes a member of the step's outstanding set and an entry of the
 * target's waiter list (taken out of the target plan's own `waiters`), and the outputs the step already received go
 * to its received-outputs hash.
 */
const upgradeGraph = async (tx: Tx, done: () => void): Promise<void> => {
  const legacy = await tx.read(documents.legacyGraph);
  if (!legacy) return done();
  const planIds = [...new Set(Object.entries(legacy).flatMap(([from, tos]) => [from, ...tos].map(planOf)))];
  const loaded = await readPlans(tx, planIds);
  const plans = new Map(planIds.map((id, i) => [id, loaded[i]]));
  const changed = new Map<string, Plan>();
  for (const [from, tos] of Object.entries(legacy)) {
    tx.op({ op: 'sadd', key: setKeys.edges(from), members: tos });
    const waiting = plans.get(planOf(from));
    const step = waiting?.steps.find((s) => s.id === stepOf(from));
    const across = tos.filter((to) => planOf(to) !== planOf(from));
    if (!waiting || !step || across.length === 0) continue;
    tx.op({ op: 'sadd', key: setKeys.outstanding(from), members: tos });
    if (step.received_outputs)
      tx.op({ op: 'hset', key: hashKeys.received(from), fields: encodeReceived(step.received_outputs) });
    const waiter: Waiter = { agent_id: waiting.agent_id, plan_id: waiting.plan_id, step_id: step.id };
    for (const to of across) {
      const waitedOn = { node: to, set: waiterSet(planOf(to)) };
      addWaiters(tx, to, [waiter]);
      countWaiters(tx, [{ target: waitedOn, waiter }]);
      const target = plans.get(planOf(to));
      const list = target?.waiters[stepOf(to)];
      if (!target || !list) continue;
      const kept = list.filter((w) => w.plan_id !== waiter.plan_id || w.step_id !== waiter.step_id);
      if (kept.length === list.length) continue;
      // A changed copy: what was read may be shared with other readers (store/parsed-json.ts).
      const waiters = { ...target.waiters };
      if (kept.length > 0) waiters[stepOf(to)] = kept;
      else delete waiters[stepOf(to)];
      const updated = { ...target, waiters };
      plans.set(planOf(to), updated);
      changed.set(updated.plan_id, updated);
    }
  }
  for (const plan of changed.values()) await savePlan(tx, plan);
  tx.delete(docKeys.dependencyGraph());
};

/**
 * Upgrades any legacy state of the workspace, in a commit of its own before the first call that reaches it (per
 * store and workspace), so that call already reads the per-step keys.
 */
export const ensureUpgraded = async (store: Store, workspace: string, budget?: CallBudget): Promise<void> => {
  let seen = upgraded.get(store);
  if (!seen) upgraded.set(store, (seen = new Set()));
  const known = seen;
  if (known.has(workspace)) return;
  await transact(store, workspace, (tx) => upgradeGraph(tx, () => void known.add(workspace)), { budget });
};
