import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** How much of a connection's first bytes is kept to tell it by name (a Redis client names itself at once). */
const OPENING_BYTES = 4096;
/** How much of what Redis sent on a connection is kept (a test's few messages are far below it). */
const RECEIVED_BYTES = 1 << 20;

interface Pair {
  client: Socket;
  upstream: Socket;
  opening: string;
  received: string;
  stalled: boolean;
}

/**
 * A TCP proxy to one Redis that can make a named client's connections go silent (the network forgets the flow and
 * tells neither side), and keeps what Redis sent on each connection: a test can then tell a message a node heard
 * through pub/sub on a given connection from one it read back from the log.
 */
export const startTappedProxy = async (redisPort: number) => {
  const pairs = new Set<Pair>();
  const server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    const pair: Pair = { client, upstream, opening: '', received: '', stalled: false };
    pairs.add(pair);
    for (const s of [client, upstream]) s.on('error', () => s.destroy());
    client.pipe(upstream).pipe(client);
    const listen = (chunk: Buffer) => {
      pair.opening += chunk.toString('latin1');
      if (pair.opening.length >= OPENING_BYTES) client.off('data', listen);
    };
    client.on('data', listen);
    upstream.on('data', (chunk: Buffer) => {
      if (pair.received.length < RECEIVED_BYTES) pair.received += chunk.toString('latin1');
    });
    client.on('close', () => {
      upstream.destroy();
      pairs.delete(pair);
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  /** CLIENT SETNAME's argument as RESP writes it. */
  const named = (name: string) => (pair: Pair) => pair.opening.includes(`$${Buffer.byteLength(name)}\r\n${name}\r\n`);
  return {
    port,
    /** Stops moving bytes on the open connections of the client named `name`; they stay open. Returns how many. */
    stall(name: string): number {
      let stalled = 0;
      for (const pair of [...pairs].filter((p) => !p.stalled && named(name)(p))) {
        pair.client.unpipe(pair.upstream);
        pair.upstream.unpipe(pair.client);
        pair.client.pause();
        pair.upstream.pause();
        pair.stalled = true;
        stalled += 1;
      }
      return stalled;
    },
    /** What Redis sent on each open, not stalled connection of the client named `name`, oldest connection first. */
    live: (name: string): string[] => [...pairs].filter((p) => !p.stalled && named(name)(p)).map((p) => p.received),
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
};
