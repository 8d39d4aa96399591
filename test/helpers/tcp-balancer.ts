import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { socketClosers } from './socket-closers.ts';

/** How much of a connection's first bytes is kept to tell it by name (a Redis client names itself at once). */
const OPENING_BYTES = 4096;

/**
 * A minimal TCP load balancer: each new connection goes to the first backend not marked down, the way a balancer
 * stops routing to a node whose /readyz fails. With one backend it is a proxy whose connections a test can stall.
 */
export const startTcpBalancer = async (backends: URL[]) => {
  const down = new Set<number>();
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket; opening: string }>();
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
    const pair = { client, upstream, opening: '' };
    const listen = (chunk: Buffer) => {
      pair.opening += chunk.toString('latin1');
      if (pair.opening.length >= OPENING_BYTES) client.off('data', listen);
    };
    client.on('data', listen);
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
    /**
     * Stops moving bytes on every open connection, which stays open: a network path gone silent (a NAT or firewall
     * that forgot the flow, and tells neither side). With `name`, only the connections of a Redis client that named
     * itself so (CLIENT SETNAME, in RESP: `$<length>\r\n<name>\r\n`). Returns how many it stalled.
     */
    stall: (name?: string): number => {
      const named = name === undefined ? undefined : `$${Buffer.byteLength(name)}\r\n${name}\r\n`;
      let stalled = 0;
      for (const pair of pairs) {
        if (named !== undefined && !pair.opening.includes(named)) continue;
        const { client, upstream } = pair;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        pairs.delete(pair);
        stalled += 1;
      }
      return stalled;
    },
    ...socketClosers(server, sockets),
  };
};
