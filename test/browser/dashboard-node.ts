import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type Store, type ServerConfigInput } from '@planhub/server';

type Cleanups = (() => Promise<unknown> | void)[];

/** A node on the memory store for a dashboard test: closed by the suite's cleanups, or earlier by `close`. */
export const dashboardNode = async (
  cleanups: Cleanups,
  config: ServerConfigInput = {},
  store: Store = createMemoryStore({ eventRetention: 1000 }),
) => {
  const server = createServer({ port: 0, logLevel: 'silent', ...config }, { store });
  const { url } = await server.listen();
  let closed = false;
  cleanups.push(() => (closed ? undefined : server.close()));
  return {
    url,
    store,
    close: async () => {
      closed = true;
      await server.close();
    },
  };
};

/** An agent of workspace `ws` on `url`, closed by the suite's cleanups. */
export const dashboardAgent = async (cleanups: Cleanups, url: string, agentId: string): Promise<PlanHubClient> => {
  const client = await connect({ url, workspace: 'ws', agentId });
  cleanups.push(() => client.close());
  return client;
};
