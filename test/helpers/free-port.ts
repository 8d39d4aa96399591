import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (the caller binds it next; a rare clash surfaces as a bind error). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

/** The kernel's ephemeral range: every `listen(0)` in the suite, and every client's source port, comes from it. */
const ephemeralRange = (): [number, number] => {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // Not Linux: fall back to IANA's dynamic range.
  }
  return [49152, 65535];
};

const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

/**
 * A port on 127.0.0.1 that refuses connections and stays refusing: it lies outside the ephemeral range, so no
 * server another test file starts with `listen(0)` can take it while this test dials it (a `freePort()` can be
 * handed out again a moment later, and was, failing a "nothing listens" test once in CI).
 */
export const refusingPort = async (): Promise<number> => {
  const [low] = ephemeralRange();
  const floor = Math.max(1024, Math.min(20_000, low - 1000));
  for (let tries = 0; tries < 50; tries++) {
    const port = floor + Math.floor(Math.random() * Math.max(1, low - floor));
    if (await refuses(port)) return port;
  }
  throw new Error(`no refusing port found between ${floor} and ${low}`);
};
