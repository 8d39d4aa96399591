import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientGone, readBodyBytes, type BodyReadOptions } from '../transport/read-body.ts';
import { scanJson, tooManyValues } from '../transport/json-scan.ts';
import { writeJsonRpcError } from './http-refusal.ts';

export type JsonBody =
  | { ok: true; bytes: number; parsed: unknown }
  /** Answered already (too large, not JSON), or the client went away. */
  | { ok: false; tooManyValues?: undefined }
  /**
   * More keys and array elements than `maxValues`: not parsed and not answered, so that the caller charges its bytes
   * to the client's budget first, as a socket frame refused the same way is (mcp-endpoint.ts answers it).
   */
  | { ok: false; tooManyValues: string; bytes: number };

export interface JsonBodyOptions extends BodyReadOptions {
  /**
   * Keys plus array elements the body may hold (limits.frameValues), counted on its raw text before JSON.parse as
   * the socket door counts a frame (transport/json-scan.ts).
   */
  maxValues?: number;
}

/** In the texts the SDK's own answers have; a 413 leaves the body unread, so its connection ends. */
const answer = (res: ServerResponse, status: number, code: number, message: string) =>
  writeJsonRpcError(res, status, { code, message });

/**
 * Reads a POST's JSON body, at most `maxBytes` of it, and answers the request itself when it cannot: 413 past the
 * limit, 400 (-32700) when it is not JSON. Read here rather than by the SDK so the call is charged by the bytes that
 * actually came, whether or not the request declared a length. A body over `maxValues` is refused before it is
 * parsed: 80,000 keys in 869 KB cost the node 270-400 ms of parsing, the SDK's validation and dispatch's walk (one
 * string as long: 10 ms), and an agent within its call budget pushed a bystander's p99 to 1.5 s.
 */
export const readJsonBody = async (
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: JsonBodyOptions = {},
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
  const text = body.toString('utf8');
  const { maxValues } = options;
  if (maxValues !== undefined && scanJson(text, { maxValues, maxDepth: Infinity }) === 'values')
    return { ok: false, tooManyValues: tooManyValues('The request', maxValues), bytes: body.byteLength };
  try {
    return { ok: true, bytes: body.byteLength, parsed: JSON.parse(text) as unknown };
  } catch {
    answer(res, 400, -32700, 'Parse error: Invalid JSON');
    return { ok: false };
  }
};
