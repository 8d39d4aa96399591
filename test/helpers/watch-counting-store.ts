import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { ServerConfigInput, Store } from '@planhub/server';
import { createServer } from '@planhub/server';
import { storeFixture, type StoreFixtureKind } from './stores.ts';

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

/** One node on a fresh store of `kind` whose watches are counted, and socket clients of it (closed with it). */
export const watchCountedNode = async (kind: StoreFixtureKind, config: ServerConfigInput) => {
  const fixture = storeFixture(kind);
  const counted = watchCounting(fixture.open());
  const server = createServer({ port: 0, logLevel: 'silent', ...config }, { store: counted.store });
  const { url } = await server.listen();
  const sockets: PlanHubClient[] = [];
  return {
    ...counted,
    url,
    socket: async (agentId: string, workspace: string, role?: 'user'): Promise<PlanHubClient> => {
      const client = await connect({ url, agentId, workspace, ...(role ? { role } : {}) });
      sockets.push(client);
      return client;
    },
    close: async (): Promise<void> => {
      for (const s of sockets.splice(0)) s.close();
      await server.close();
      await fixture.close();
    },
  };
};
export type WatchCountedNode = Awaited<ReturnType<typeof watchCountedNode>>;
