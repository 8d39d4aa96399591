import type { Store } from '@planhub/server';

/**
 * A real store whose `watch` calls (what makes a node follow a workspace's events) are counted: `watched` ever made,
 * `open` not yet stopped. `holdApprovalRequest` runs a hook inside the next commit that asks for a plan's approval,
 * after it applied and before it answers, so what the committing call does next comes after the hook's writes.
 */
export const watchCounting = (store: Store) => {
  const counts = { watched: 0, open: 0 };
  let held: (() => Promise<void>) | undefined;
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    watch: (workspace, listener) => {
      counts.watched += 1;
      counts.open += 1;
      const unwatch = store.watch(workspace, listener);
      let stopped = false;
      return () => {
        if (!stopped) counts.open -= 1;
        stopped = true;
        unwatch();
      };
    },
    commit: async (workspace, commit) => {
      const outcome = await store.commit(workspace, commit);
      const hook = held;
      if (hook && outcome.ok && commit.events.some((e) => e.event_type === 'plan_approval_requested')) {
        held = undefined;
        await hook();
      }
      return outcome;
    },
  };
  return {
    store: wrapped,
    counts,
    holdApprovalRequest: (hook: () => Promise<void>) => void (held = hook),
  };
};
