import type { JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MAX_WAIT_SECONDS } from '@planhub/shared';

/** A call that does not wait by design is answered well within this, or its answer is not coming. */
const CALL_DEADLINE_MS = 60_000;
/** waitForEvents' own default wait, in seconds (docs/mcp.md). */
const DEFAULT_WAIT_SECONDS = 20;
/** On top of a waitForEvents' own wait: the node's scan and a loaded machine. */
const WAIT_MARGIN_MS = 30_000;

/** How long the bridge waits for the node's answer to `request` before answering the host itself. */
export const deadlineOf = (request: JSONRPCRequest): number => {
  const params = request.params as { name?: unknown; arguments?: { timeout?: unknown } | null } | undefined;
  if (request.method !== 'tools/call' || params?.name !== 'waitForEvents') return CALL_DEADLINE_MS;
  const timeout = params.arguments?.timeout;
  const seconds = typeof timeout === 'number' && Number.isFinite(timeout) ? timeout : DEFAULT_WAIT_SECONDS;
  return Math.min(Math.max(seconds, 0), MAX_WAIT_SECONDS) * 1000 + WAIT_MARGIN_MS;
};

/**
 * The host's requests forwarded to the node and not answered yet. Each gets exactly one answer: the node's, or, when
 * the stream that was to carry it broke or its deadline passed, an error from the bridge (`answer`) telling the host
 * to call again. A reply that comes after that is dropped: the host has had its answer for that id.
 */
export class PendingRequests {
  private readonly timers = new Map<RequestId, ReturnType<typeof setTimeout>>();
  private readonly answered = new Set<RequestId>();

  constructor(private readonly answer: (id: RequestId, message: string) => void) {}

  track(request: JSONRPCRequest): void {
    // An id the host uses again is a new request: a late reply to the old one can no longer be told apart.
    this.answered.delete(request.id);
    clearTimeout(this.timers.get(request.id));
    const ms = deadlineOf(request);
    this.timers.set(
      request.id,
      setTimeout(() => this.fail(request.id, `The PlanHub node did not answer within ${ms / 1000} s; call again.`), ms),
    );
  }

  /** The node's reply for `id` passes to the host, unless the bridge has answered that request already. */
  settle(id: RequestId): boolean {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    return !this.answered.delete(id);
  }

  /** Answers `id` with an error now, if it still waits. */
  fail(id: RequestId, message: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(id);
    this.answered.add(id);
    this.answer(id, message);
  }

  /** The bridge is ending: no answer is due any more. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
