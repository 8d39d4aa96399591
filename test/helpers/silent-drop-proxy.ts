import { createServer, connect, type Socket } from 'node:net';

interface Flow {
  client: Socket;
  upstream: Socket;
  /** What the client sent first (its CLIENT SETNAME among it), for telling connections apart by name. */
  opening: string;
  dropped: boolean;
}

/** How much of a connection's first bytes is kept to find its name in (ioredis names it right after connecting). */
const OPENING_BYTES = 4096;

/**
 * A TCP proxy to Redis that can drop connections the way a NAT or firewall does when it forgets a flow: nothing
 * passes either way any more, and the client's side is neither closed nor reset, so the client is not told. The
 * Redis side is closed, as Redis would after its own timeout. Connections made afterwards pass as before.
 */
export const startSilentDropProxy = async (target: { host: string; port: number }) => {
  const flows = new Set<Flow>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const flow: Flow = { client, upstream, opening: '', dropped: false };
    flows.add(flow);
    client.on('data', (chunk: Buffer) => {
      if (flow.dropped) return;
      if (flow.opening.length < OPENING_BYTES) flow.opening += chunk.toString('latin1');
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!flow.dropped) client.write(chunk);
    });
    const end = () => {
      if (flow.dropped) return;
      flows.delete(flow);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', () => undefined);
    upstream.on('close', end).on('error', () => undefined);
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    port,
    /** Drops, silently, every open connection whose client named itself exactly `name`; returns how many. */
    drop(name: string): number {
      // RESP's bulk string of the name, as CLIENT SETNAME sends it: `$<length>\r\n<name>\r\n`.
      const named = `$${Buffer.byteLength(name)}\r\n${name}\r\n`;
      let dropped = 0;
      for (const flow of flows)
        if (!flow.dropped && flow.opening.includes(named)) {
          flow.dropped = true;
          flow.client.pause();
          flow.upstream.destroy();
          dropped += 1;
        }
      return dropped;
    },
    async close() {
      for (const flow of flows) {
        flow.client.destroy();
        flow.upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
