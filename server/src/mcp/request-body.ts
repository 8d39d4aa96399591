import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientGone, readBodyBytes, type BodyReadOptions } from '../transport/read-body.ts';
import { writeJsonRpcError } from './http-refusal.ts';

export type JsonBody = { ok: true; bytes: number; parsed: unknown } | { ok: false };

/** In the texts the SDK's own answers have; a 413 leaves the body unread, so its connection ends. */
const answer = (res: ServerResponse, status: number, code: number, message: string) =>
  writeJsonRpcError(res, status, { code, message });

/**
 * Reads a POST's JSON body, at most `maxBytes` of it, and answers the request itself when it cannot: 413 past the
 * limit, 400 (-32700) when it is not JSON. Read here rather than by the SDK so the call is charged by the bytes that
 * actually came, whether or not the request declared a length.
 */
export const readJsonBody = async (
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: BodyReadOptions = {},
): Promise<JsonBody> => {
  let body: Buffer | undefined;
  try {
    body = await readBodyBytes(req, maxBytes, options);
  } catch (err) {
    // A client that went away mid-body gets no answer: there is no one to read it.
    if (err instanceof ClientGone) return { ok: false };
    throw err;
  }
  if (body === undefined) {
    answer(res, 413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
    return { ok: false };
  }
  try {
    return { ok: true, bytes: body.byteLength, parsed: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    answer(res, 400, -32700, 'Parse error: Invalid JSON');
    return { ok: false };
  }
};
