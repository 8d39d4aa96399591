import type { IncomingMessage, ServerResponse } from 'node:http';

export type JsonBody = { ok: true; bytes: number; parsed: unknown } | { ok: false };

/** A JSON-RPC error before the SDK sees the request, in the shape and with the texts the SDK's own answers have. */
const answer = (res: ServerResponse, status: number, code: number, message: string, close = false) => {
  res
    .writeHead(status, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
};

/**
 * Reads a POST's JSON body, at most `maxBytes` of it, and answers the request itself when it cannot: 413 past the
 * limit, 400 (-32700) when it is not JSON. Read here rather than by the SDK so the call is charged by the bytes that
 * actually came, whether or not the request declared a length.
 */
export const readJsonBody = async (req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<JsonBody> => {
  const tooLarge = () => {
    // The rest of the body is not read: the connection closes after the answer instead of draining it.
    answer(res, 413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`, true);
    return { ok: false } as const;
  };
  if (Number(req.headers['content-length']) > maxBytes) return tooLarge();
  const chunks: Buffer[] = [];
  let bytes = 0;
  const ending = await new Promise<'whole' | 'too large' | 'gone'>((resolve) => {
    const done = (how: 'whole' | 'too large' | 'gone') => {
      // 'error' stays handled: one after this (a reset) must not become an uncaught exception.
      req.off('data', onData).off('end', onEnd).off('close', onGone);
      resolve(how);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) {
        // Paused rather than destroyed: the answer must still reach the client on this socket.
        req.pause();
        done('too large');
      } else chunks.push(chunk);
    };
    const onEnd = () => done('whole');
    // A client that went away mid-body gets no answer: there is no one to read it.
    const onGone = () => done('gone');
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  });
  if (ending === 'too large') return tooLarge();
  if (ending === 'gone') return { ok: false };
  try {
    return { ok: true, bytes, parsed: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    answer(res, 400, -32700, 'Parse error: Invalid JSON');
    return { ok: false };
  }
};
