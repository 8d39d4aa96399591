import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Makes an event stream's answer `Cache-Control: no-store`. The MCP SDK answers its GET stream `no-cache`, which a
 * browser may still store: Chromium keeps the aborted stream in its HTTP cache, and the session's next request (the
 * DELETE that ends it) meets that entry and is sent twice, the second finding no session. The SDK hands its headers
 * to writeHead, which overrides anything set before it, so they are rewritten there.
 */
export const answerNoStore = (res: ServerResponse): void => {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  res.writeHead = (status: number, ...rest: unknown[]) => {
    const headers = rest.find((arg): arg is OutgoingHttpHeaders => typeof arg === 'object' && arg !== null);
    if (headers && !Array.isArray(headers))
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'cache-control') delete headers[name];
    res.setHeader('cache-control', 'no-store');
    return writeHead(status, ...rest);
  };
};
