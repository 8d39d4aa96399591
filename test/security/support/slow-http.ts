import { connect } from 'node:net';

export interface RawExchange {
  /** Everything the node sent, as text. */
  text: () => string;
  /** Resolves with the milliseconds from the start until the node closed the connection. */
  closed: Promise<number>;
  write: (data: string) => void;
  destroy: () => void;
}

/**
 * A TCP client that writes a request by hand, as a slow or hostile client would: `head` at once, then whatever the
 * test writes, byte by byte if it likes. Records what comes back and when the node closes the connection.
 */
export const rawHttp = (url: string, head: string): Promise<RawExchange> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname);
    const closed = new Promise<number>((done) => socket.once('close', () => done(performance.now() - started)));
    // The node resetting a connection it no longer wants is an acceptable way to close it.
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('connect', () => {
      socket.write(head);
      resolve({
        text: () => Buffer.concat(chunks).toString('utf8'),
        closed,
        write: (data) => void (socket.destroyed || socket.write(data)),
        destroy: () => socket.destroy(),
      });
    });
    socket.once('error', reject);
  });

/** Writes one byte every `everyMs` until stopped or the connection closes. */
export const dribble = (exchange: RawExchange, everyMs: number): (() => void) => {
  const timer = setInterval(() => exchange.write('x'), everyMs);
  void exchange.closed.then(() => clearInterval(timer));
  return () => clearInterval(timer);
};

/** A request head announcing a body of `length` bytes. */
export const postHead = (path: string, length: number, headers: Record<string, string> = {}) =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
