import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer, type Store } from '@planhub/server';
import { readCounting, type StoreReads } from './read-counting-store.ts';
import { storeFixture, type StoreFixtureKind } from './stores.ts';

export interface CountedNode {
  server: PlanHubServer;
  /** Where more agents connect. */
  url: string;
  /** Agent `a` of workspace `ws`. */
  client: PlanHubClient;
  /** The node's store, counted: what a test writes through it directly is counted too. */
  store: Store;
  reads: StoreReads;
  close(): Promise<void>;
}

/** One node (approval policy `auto`) on a fresh store of `kind` whose reads are counted, and an agent connected. */
export const countedNode = async (kind: StoreFixtureKind): Promise<CountedNode> => {
  const fixture = storeFixture(kind);
  const { store, reads } = readCounting(fixture.open());
  const server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store });
  const { url } = await server.listen();
  const client = await connect({ url, agentId: 'a', workspace: 'ws' });
  return {
    server,
    url,
    client,
    store,
    reads,
    async close() {
      client.close();
      await server.close();
      await fixture.close();
    },
  };
};
