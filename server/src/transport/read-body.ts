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

/** What a caller may add to a body's read: a check of each chunk before it is kept, and a deadline for the whole. */
export interface BodyReadOptions {
  /** Called with each chunk's size before it is kept: an error stops the read, which rejects with it. */
  admit?: (bytes: number) => Error | undefined;
  /** The body must have arrived whole within this many ms of the call, or the read rejects with `late()`. */
  deadlineMs?: number;
  late?: () => Error;
}

/**
 * A request's body, or undefined once it is longer than `maxBytes`: reading stops there (a Content-Length over the
 * limit is refused before reading anything), and the caller answers 413; the router then ends the connection, whose
 * body never finished. Rejects with ClientGone if the client leaves first, and with what `options` say.
 */
export const readBodyBytes = (
  req: IncomingMessage,
  maxBytes: number,
  options: BodyReadOptions = {},
): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > maxBytes) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const timer =
      options.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            req.off('data', onData);
            reject(options.late?.() ?? new ClientGone());
          }, options.deadlineMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      const refused = size > maxBytes ? undefined : options.admit?.(chunk.length);
      if (refused) {
        req.off('data', onData);
        reject(refused);
      } else if (size > maxBytes) {
        req.off('data', onData);
        resolve(undefined);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.once('close', () => clearTimeout(timer));
    // Settled already for an ended or oversized body: then these change nothing. 'error' stays handled for good: a
    // reset after the body must not become an uncaught exception.
    req.on('error', () => reject(new ClientGone()));
    req.once('close', () => reject(new ClientGone()));
  });

/** readBodyBytes as UTF-8 text. */
export const readBody = async (req: IncomingMessage, maxBytes: number): Promise<string | undefined> =>
  (await readBodyBytes(req, maxBytes))?.toString('utf8');
