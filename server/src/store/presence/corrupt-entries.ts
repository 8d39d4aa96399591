import { PlanHubError } from '@planhub/shared';
import { corruptEntry } from './presence-entry.ts';

/**
 * Names kept (and errors queued) at most: a store full of corrupt entries must not grow this without end. Past it
 * the rest are skipped unnamed, with one error saying so; forgetting the names instead would name all of them
 * again on every read.
 */
const MAX_NAMED = 10_000;
/** A name holds a raw hash field, which can be any length. */
const MAX_NAME_LENGTH = 200;

/**
 * The corrupt entries a presence backend skipped, each named once per backend. The backend has no logger of its own
 * (the store builds it); its tracker takes these and logs them with each sweep. Once per key rather than per read:
 * every getWorkspace of the workspace and every heartbeat reads the same bad entry again.
 */
export const createCorruptEntries = () => {
  const named = new Set<string>();
  let pending: PlanHubError[] = [];
  let overflowed = false;
  return {
    found(fullName: string, detail: string) {
      const name = fullName.length > MAX_NAME_LENGTH ? `${fullName.slice(0, MAX_NAME_LENGTH - 1)}…` : fullName;
      if (named.has(name)) return;
      if (named.size >= MAX_NAMED) {
        if (!overflowed)
          pending.push(
            new PlanHubError(
              'INTERNAL',
              `More than ${MAX_NAMED} stored presence entries are corrupt; the rest are skipped, as no connection, ` +
                'without being named. Repair or delete them.',
            ),
          );
        overflowed = true;
        return;
      }
      named.add(name);
      pending.push(corruptEntry(name, detail));
    },
    take(): PlanHubError[] {
      const out = pending;
      pending = [];
      return out;
    },
  };
};
