import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { EventIdSchema, MCP_EVENT_CURSOR_HEADER } from '@planhub/shared';

/**
 * A fetch that tells `onOpened` where a session the node just opened starts in the event log (the header of the
 * answer to its initialize), so that the bridge knows the session's position before any wait of the host's answers.
 */
export const fetchNotingSessionStart =
  (inner: FetchLike, onOpened: (after: string) => void): FetchLike =>
  async (url, init) => {
    const response = await inner(url, init);
    const after = response.headers.get(MCP_EVENT_CURSOR_HEADER);
    if (after !== null && EventIdSchema.safeParse(after).success) onOpened(after);
    return response;
  };
