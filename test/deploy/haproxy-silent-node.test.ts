import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { startHaproxy, type Balancer } from './haproxy.ts';
import { silencePort, type SilentPort } from './silent-port.ts';

/** The SDK's handshake timeout for one connection attempt (client-sdk/src/client.ts). */
const SDK_HANDSHAKE_MS = 5000;
/** How long new clients keep arriving after the node went silent: before the health checks (2 x 1 s) take it out. */
const ARRIVALS_MS = 2000;
const EVERY_MS = 200;

/**
 * A node container that dies or is stopped takes its address with it: a connection to it is not refused (no RST),
 * it is simply never answered. balance leastconn sends the next new client to that emptied node, and HAProxy holds
 * the client for `timeout connect` before it redispatches to a live one. At 5 s that was exactly the SDK's handshake
 * timeout, so clients (re)connecting in the seconds before the health checks noticed gave up as HAProxy redispatched.
 */
describe('a node that went silent behind HAProxy (deploy/haproxy.cfg)', () => {
  let cluster: Cluster;
  let lb: Balancer;
  let silent: SilentPort | undefined;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
    const [a, b] = cluster.urls.map((u) => new URL(u).host) as [string, string];
    lb = await startHaproxy([a, b]);
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await silent?.close();
    await lb?.close();
    await cluster?.close();
  });

  /** One SDK connection attempt, over a bare socket.io client: websocket only, no reconnection, its timeout. */
  const attempt = (i: number) =>
    new Promise<string | undefined>((resolve) => {
      const socket = io(lb.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        timeout: SDK_HANDSHAKE_MS,
        auth: { workspace: 'silent', agent_id: `agent-${i}`, role: 'agent' },
      });
      sockets.push(socket);
      const startedAt = performance.now();
      socket.once('connect', () => resolve(undefined));
      socket.once('connect_error', (err) =>
        resolve(`client ${i}: ${err.message} after ${Math.round(performance.now() - startedAt)} ms`),
      );
    });

  it('lets every client that connects meanwhile in, through the live node, within its handshake timeout', async () => {
    const port = Number(new URL(cluster.urls[0] as string).port);
    await cluster.kill(0);
    silent = await silencePort(port);

    const outcomes: Promise<string | undefined>[] = [];
    for (let i = 0; i * EVERY_MS < ARRIVALS_MS; i++) {
      outcomes.push(attempt(i));
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
    const failures = (await Promise.all(outcomes)).filter((f) => f !== undefined);
    expect(failures, `balancer:\n${lb.output()}`).toEqual([]);
  });
});
