import type { IncomingMessage } from 'node:http';

/** The client closed the connection before its request's body had arrived: there is nobody left to answer. */
export class ClientGone extends Error {
  constructor() {
    super('The client closed the connection before its request body arrived.');
    this.name = 'ClientGone';
  }
}

/** A failure that is the client leaving mid-request, not a fault of the node: worth a debug line, not an error. */
export const isClientGone = (err: unknown): boolean =>
  err instanceof ClientGone ||
  (err instanceof Error && ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || err.message === 'aborted'));

/**
 * A request's body as text, or undefined once it is longer than `maxBytes`: reading stops there (a Content-Length
 * over the limit is refused before reading anything), and the caller answers 413, which ends the connection.
 * Rejects with ClientGone if the client leaves first.
 */
export const readBody = (req: IncomingMessage, maxBytes: number): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        resolve(undefined);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // Settled already for an ended or oversized body: then these change nothing.
    req.once('error', () => reject(new ClientGone()));
    req.once('close', () => reject(new ClientGone()));
  });
