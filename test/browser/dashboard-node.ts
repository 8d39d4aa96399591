import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type Store, type ServerConfigInput } from '@planhub/server';
import type { Browser, Page } from 'playwright-core';
import { watchPageErrors } from './chromium.ts';

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

/** An agent (or, with `role`, a user) of workspace `ws` on `url`, closed by the suite's cleanups. */
export const dashboardAgent = async (
  cleanups: Cleanups,
  url: string,
  agentId: string,
  role?: 'agent' | 'user',
): Promise<PlanHubClient> => {
  const client = await connect({ url, workspace: 'ws', agentId, ...(role ? { role } : {}) });
  cleanups.push(() => client.close());
  return client;
};

/**
 * The dashboard of workspace `ws` as user alice, at `hash`, once its connection is live: the page (closed by the
 * suite's cleanups) and the page errors seen on it.
 */
export const openDashboard = async (
  browser: Browser,
  cleanups: Cleanups,
  url: string,
  { hash = '', width = 1280 }: { hash?: string; width?: number } = {},
): Promise<{ page: Page; errors: string[] }> => {
  const page = await browser.newPage({ viewport: { width, height: 860 } });
  cleanups.push(() => page.close());
  const errors = watchPageErrors(page);
  await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user${hash}`);
  await page.locator('#connection.live').waitFor();
  return { page, errors };
};
