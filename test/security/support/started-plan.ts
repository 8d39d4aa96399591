import type { Store } from '@planhub/server';
import { afterEach, expect } from 'vitest';
import { startHarness, type Harness, type HarnessStoreKind } from '../../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from './raw-client.ts';

/**
 * A node on `kind` with agent `a` of workspace `ws` connected raw, its one-step plan created and started; call it in
 * a describe block. Everything it starts is closed after each test.
 */
export const startedPlanFixture = (kind: HarnessStoreKind) => {
  let h: Harness | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
    h = undefined;
  });
  return {
    start: async (): Promise<RawClient> => {
      h = await startHarness(kind, { approvalPolicy: 'auto' });
      const a = await rawClient(h.url, openAuth('ws', 'a'));
      clients.push(a);
      expect((await a.call('createPlan', { title: 't', steps: ['first'] })).ok).toBe(true);
      expect((await a.call('startPlan', {})).ok).toBe(true);
      return a;
    },
    /** The node's store, to write or read what no call does. */
    store: (): Store => {
      if (!h) throw new Error('start() first');
      return h.server.services.store;
    },
  };
};
