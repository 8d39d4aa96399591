import { createServer as createTcpServer, type Socket } from 'node:net';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLog } from '../security/support/capture-log.ts';
import { refusingPort } from '../helpers/free-port.ts';
import { uniquePrefix } from '../helpers/servers.ts';

/**
 * The node answers within 700 ms (probe-routes.ts), inside a balancer's 1 s check; this adds room for a loaded test
 * machine, and stays well below what a probe took before (3.1 s with Redis refusing, 6.0 s with Redis hung).
 */
const PROBE_BOUND_MS = 2_000;

const timedProbe = async (url: string) => {
  const started = performance.now();
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { reason?: string };
  return { status: res.status, body, ms: performance.now() - started };
};

describe('/readyz answers within a balancer check timeout', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const start = async (redisUrl: string) => {
    const server: PlanHubServer = createServer(
      { port: 0, redisUrl, redisPrefix: uniquePrefix() },
      { log: captureLog().log },
    );
    cleanups.push(() => server.close());
    return (await server.listen()).url;
  };

  it('says not ready at once when Redis refuses connections', async () => {
    const url = await start(`redis://127.0.0.1:${await refusingPort()}`);
    const probe = await timedProbe(url);
    expect(probe.status).toBe(503);
    expect(probe.body.reason).toBe('store_unreachable');
    expect(probe.ms).toBeLessThan(PROBE_BOUND_MS);
  });

  it('says not ready at once when Redis accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const hung = createTcpServer((socket) => void sockets.add(socket));
    const port = await new Promise<number>((resolve) =>
      hung.listen(0, '127.0.0.1', () => resolve((hung.address() as { port: number }).port)),
    );
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          hung.close(() => resolve());
        }),
    );
    const url = await start(`redis://127.0.0.1:${port}`);
    const probe = await timedProbe(url);
    expect(probe.status).toBe(503);
    expect(probe.body.reason).toBe('store_unreachable');
    expect(probe.ms).toBeLessThan(PROBE_BOUND_MS);
  });
});
