import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A minimal TCP load balancer for browser tests: each new connection goes to the first backend not marked down,
 * the way a balancer stops routing to a node whose /readyz fails.
 */
export const startTcpBalancer = async (backends: URL[]) => {
  const down = new Set<number>();
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const index = backends.findIndex((_, i) => !down.has(i));
    const target = backends[index];
    if (!target) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    down: (index: number) => down.add(index),
    up: (index: number) => down.delete(index),
    /** Stops moving bytes on every open connection, which stays open: a network path gone silent. */
    stall: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    /** Drops every connection now, as a network path that fails does; new ones are routed as before. */
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};
