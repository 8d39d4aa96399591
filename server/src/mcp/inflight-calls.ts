import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_META, errorResult } from './tool-result.ts';

const CLOSED = errorResult({
  code: 'UNAVAILABLE',
  message:
    'This MCP session closed while the call was waiting (the node is shutting down, or the session was deleted or ' +
    'expired). Call again: the host reconnects to a running node.',
});

const unavailable = (result: CallToolResult) =>
  (result._meta?.[ERROR_META] as { code?: string } | undefined)?.code === 'UNAVAILABLE';

/**
 * A session's running tool calls. When the session closes they are answered at once instead of being dropped with
 * the transport: an MCP client whose response stream ends without an answer keeps waiting until its own timeout.
 * What is still running then only waits (node drain has let working calls finish), so a retry is safe.
 */
export class InflightCalls {
  private readonly running = new Set<Promise<CallToolResult>>();
  private readonly closed: Promise<CallToolResult>;

  constructor(private readonly signal: AbortSignal) {
    this.closed = new Promise((resolve) => {
      if (signal.aborted) resolve(CLOSED);
      // A turn later: a call whose work ended with the node's drain is still on its way back through promise
      // continuations when the session closes (the drain ends as its dispatch returns), and its answer must win; told
      // "call again", a host repeated an applied call. What still waits is answered CLOSED (run() says why twice).
      else signal.addEventListener('abort', () => setImmediate(() => resolve(CLOSED)), { once: true });
    });
  }

  run(call: Promise<CallToolResult>): Promise<CallToolResult> {
    // A wait ends UNAVAILABLE on the same abort, within that turn: it gets the session's own words, which say why.
    const own = call.then((result) => (this.signal.aborted && unavailable(result) ? CLOSED : result));
    const answered = Promise.race([own, this.closed]);
    this.running.add(answered);
    void answered.finally(() => this.running.delete(answered));
    return answered;
  }

  /** Resolves once every running call has its answer written (call after the abort). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
    // The SDK writes a response in a continuation of the handler's promise; let it run before the transport closes.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
