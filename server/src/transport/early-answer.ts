import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * `Connection: close` for an answer sent before its request's body has all arrived. The router ends such a
 * connection once the answer is out (see createHttpHandler); the header tells the client, so that a keep-alive client
 * does not send its next request on a connection about to go.
 */
export const closeIfEarly = (res: ServerResponse): OutgoingHttpHeaders =>
  // res.req is unset only for a response built by hand, as some unit tests do.
  (res.req as typeof res.req | undefined)?.complete === false ? { connection: 'close' } : {};
