import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from './tool-result.ts';

const CLOSED = errorResult({
  code: 'UNAVAILABLE',
  message:
    'This MCP session closed while the call was waiting (the node is shutting down, or the session was deleted or ' +
    'expired). Call again: the host reconnects to a running node.',
});

/**
 * A session's running tool calls. When the session closes they are answered at once instead of being dropped with
 * the transport: an MCP client whose response stream ends without an answer keeps waiting until its own timeout.
 * What is still running then only waits (node drain has let working calls finish), so a retry is safe.
 */
export class InflightCalls {
  private readonly running = new Set<Promise<CallToolResult>>();
  private readonly closed: Promise<CallToolResult>;

  constructor(signal: AbortSignal) {
    this.closed = new Promise((resolve) => {
      if (signal.aborted) resolve(CLOSED);
      else signal.addEventListener('abort', () => resolve(CLOSED), { once: true });
    });
  }

  run(call: Promise<CallToolResult>): Promise<CallToolResult> {
    const answered = Promise.race([call, this.closed]);
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
