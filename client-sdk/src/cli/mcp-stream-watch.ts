import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Told which requests' answers were on a stream that broke, and why it broke. */
export type BrokenStreamListener = (ids: RequestId[], reason: string) => void;

/**
 * Reported this much later: answers the stream delivered just before it broke may still be on their way through the
 * transport's parser, and must reach the host as themselves rather than be overtaken by an error.
 */
const SETTLE_MS = 100;

/** The ids of the requests a POST to /mcp carries (one message, or a batch). */
const requestIdsOf = (init: RequestInit | undefined): RequestId[] => {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(init.body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m: unknown) =>
      typeof m === 'object' &&
      m !== null &&
      'method' in m &&
      'id' in m &&
      (typeof m.id === 'string' || typeof m.id === 'number')
        ? [m.id]
        : [],
    );
  } catch {
    return [];
  }
};

/**
 * Node's fetch rejects with "fetch failed" alone and keeps the reason (ECONNREFUSED, ENOTFOUND, a TLS error) in
 * `cause`; the host shows only the message, so the message names the node and the reason. An abort is left as it is.
 */
const unreachable = (url: string | URL, err: unknown): unknown => {
  if (!(err instanceof TypeError) || !(err.cause instanceof Error)) return err;
  const cause = err.cause as NodeJS.ErrnoException;
  const { origin, pathname } = new URL(url);
  return new Error(`cannot reach the PlanHub node at ${origin}${pathname} (${cause.code ?? cause.message})`, { cause });
};

/**
 * The fetch of the bridge's MCP transport: like fetch, but when the event stream that answers a POST breaks before
 * its end (the node was killed, the connection reset), `onBroken` hears which requests it carried. The SDK's
 * transport only reports "SSE stream disconnected", naming no request, and their answers will never come.
 */
export const fetchWatchingStreams =
  (onBroken: BrokenStreamListener): FetchLike =>
  async (url, init) => {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      throw unreachable(url, err);
    }
    const ids = requestIdsOf(init);
    const type = response.headers.get('content-type') ?? '';
    if (ids.length === 0 || !response.ok || response.body === null || !type.startsWith('text/event-stream'))
      return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          controller.error(err);
          const reason = err instanceof Error ? err.message : String(err);
          setTimeout(() => onBroken(ids, reason), SETTLE_MS);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
