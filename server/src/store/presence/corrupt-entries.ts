import type { PlanHubError } from '@planhub/shared';
import { corruptEntry } from './presence-entry.ts';

/**
 * Keys beyond which the names already reported are forgotten (and may be reported again): a store full of corrupt
 * entries must not grow this set without end.
 */
const MAX_NAMED = 10_000;

/**
 * The corrupt entries a presence backend skipped, each named once per backend. The backend has no logger of its own
 * (the store builds it); its tracker takes these and logs them with each sweep. Once per key rather than per read:
 * every getWorkspace of the workspace and every heartbeat reads the same bad entry again.
 */
export const createCorruptEntries = () => {
  const named = new Set<string>();
  let pending: PlanHubError[] = [];
  return {
    found(name: string, detail: string) {
      if (named.has(name)) return;
      if (named.size >= MAX_NAMED) named.clear();
      named.add(name);
      if (pending.length < MAX_NAMED) pending.push(corruptEntry(name, detail));
    },
    take(): PlanHubError[] {
      const out = pending;
      pending = [];
      return out;
    },
  };
};
