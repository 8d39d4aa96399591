import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { socketClosers } from '../helpers/socket-closers.ts';

/**
 * A TCP proxy to one node that can lose what the node says: from `drop()` on (or from the first chunk holding
 * `marker`), nothing the node sends reaches the client, while what the client sends still reaches the node, which
 * goes on working. A node's frames to a client are not masked, so an answer can be told by its text. `cut()` then
 * ends every connection, as a node that dies does.
 */
export const startAnswerDroppingProxy = async (target: string) => {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let dropping = false;
  let marker: string | undefined;
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!dropping && marker !== undefined && chunk.toString('latin1').includes(marker)) dropping = true;
      if (!dropping) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Loses everything the node sends from now on, or from the first chunk that holds `from`. */
    drop: (from?: string) => {
      if (from === undefined) dropping = true;
      else marker = from;
    },
    /** Whether it has started losing the node's bytes. */
    dropping: () => dropping,
    ...socketClosers(server, sockets),
  };
};
