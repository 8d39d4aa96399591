import type { Store } from '../../store/store.ts';

/** Most agents on a node keep well under this; past it the least recently changed hint is dropped. */
const MAX_HINTS = 10_000;

const hints = new WeakMap<Store, Map<string, string>>();

const keyOf = (workspace: string, agentId: string) => `${workspace}\u0000${agentId}`;

/**
 * The plan an agent's index last named as its current plan, as this node saw it: only a guess (another node may have
 * changed it since), used to read the plan in the same round trip as the index, which is checked as usual. A wrong
 * or missing guess costs a second round trip, never a wrong answer.
 */
export const currentPlanHint = {
  get(store: Store, workspace: string, agentId: string): string | undefined {
    return hints.get(store)?.get(keyOf(workspace, agentId));
  },
  set(store: Store, workspace: string, agentId: string, planId: string | undefined): void {
    let map = hints.get(store);
    if (!map) hints.set(store, (map = new Map<string, string>()));
    const key = keyOf(workspace, agentId);
    map.delete(key);
    if (planId === undefined) return;
    map.set(key, planId);
    if (map.size > MAX_HINTS) map.delete(map.keys().next().value ?? key);
  },
};
