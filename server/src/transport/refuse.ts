import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ErrorCode } from '@planhub/shared';

/**
 * A refusal in the shape every other answer of PlanHub has: `{ ok: false, error: { code, message } }`. Sent before
 * the request's body has all arrived, it also ends the connection: Node would otherwise keep reading (and
 * discarding) whatever the client goes on sending, for as long as it likes.
 */
export const refuse = (
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: OutgoingHttpHeaders = {},
): void => {
  // A route that failed after it began its answer can only end it.
  if (res.headersSent) return void res.end();
  // res.req is unset only for a response built by hand, as some unit tests do.
  const early = (res.req as typeof res.req | undefined)?.complete === false;
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      // Node ends the socket once an answer with Connection: close is written.
      ...(early ? { connection: 'close' } : {}),
    })
    .end(`${JSON.stringify({ ok: false, error: { code, message } })}\n`);
};
