import type { Commit, Store } from '@planhub/server';

export interface CommitHold {
  /** Resolves once a commit matching the hold arrived (it waits until `release`). */
  reached: Promise<void>;
  release(): void;
}

/**
 * A real store whose next commit matching a predicate waits until the test releases it: whatever the test commits
 * meanwhile lands between that call's reads and its commit, the window a race must get right. Nothing else changes.
 */
export const holdingCommits = (store: Store) => {
  let armed: { matches: (c: Commit) => boolean; reached: () => void; released: Promise<void> } | undefined;
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    async commit(ws, commit) {
      const hold = armed;
      if (hold?.matches(commit)) {
        armed = undefined;
        hold.reached();
        await hold.released;
      }
      return store.commit(ws, commit);
    },
  };
  /** Holds the next commit for which `matches` is true (only that attempt: a re-run goes through). */
  const holdNext = (matches: (c: Commit) => boolean): CommitHold => {
    let reached = () => {};
    let release = () => {};
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    armed = { matches, reached, released };
    return { reached: arrived, release };
  };
  return { store: wrapped, holdNext };
};
