import type { ServerOptions } from 'node:http';

/** How long the plain HTTP server waits for a client that is slow to send its request. */
export interface HttpTimeouts {
  /** From the first byte of a request to the end of its headers. */
  headersMs: number;
  /**
   * From the first byte to the end of the body. Node stops counting once the request has arrived, so it never cuts an
   * answer that takes long: socket.io long-polling, the MCP event stream, an MCP POST inside waitForEvents.
   */
  requestMs: number;
  /** How long an idle kept-alive connection waits for its next request. */
  keepAliveMs: number;
  /** How often Node looks for requests past those limits: a limit can fire this much late. */
  checkEveryMs: number;
}

/**
 * Node's defaults held a client sending a byte every 5 s for 300 s and let one address hold thousands of such
 * connections; these bound each one to seconds. Bodies here are JSON: an MCP POST of at most payloadBytes (1 MiB by
 * default), any other at most 16 KiB. 30 s carries 1 MiB at 35 KB/s, so only a very slow link is cut.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

export const httpServerOptions = (overrides: Partial<HttpTimeouts> = {}): ServerOptions => {
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...overrides };
  return {
    // Node refuses a headers limit longer than the request limit.
    headersTimeout: Math.min(t.headersMs, t.requestMs),
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: t.checkEveryMs,
  };
};
