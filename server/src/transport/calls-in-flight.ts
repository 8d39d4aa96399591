import type { ErrorShape } from '@planhub/shared';
import { CALLS_IN_FLIGHT_PER_CONNECTION } from '@planhub/shared';
import { WAITS_PER_CONNECTION } from '../limits/wait-slots.ts';

/**
 * Calls one connection may have working at once beside its waits. The SDK and the bench keep 5–50 calls in flight
 * on a connection; 64 leaves room above that, and bounds what one socket can start in one read of its transport.
 */
const WORKING_CALLS_PER_CONNECTION = 64;

/**
 * Calls one connection may have in flight, answered or not: every wait its agent may park on it (long-polls and
 * startPlan decisions, WAITS_PER_CONNECTION, each bounded by limits/wait-slots.ts) plus the working calls, so an
 * agent holding all its waits on one connection can still work at the SDK's usual concurrency. Without a bound, one
 * socket sending small frames as fast as it could started every one at once: 100,000s of store round trips queued
 * ahead of other tenants' and /readyz's, and the node's RSS went from 159 to 528 MB (1.9 GB with 4 sockets).
 */
export const CALLS_PER_CONNECTION = WAITS_PER_CONNECTION + WORKING_CALLS_PER_CONNECTION;
// The SDK keeps under the figure the contract states; the two must not drift apart.
if (CALLS_PER_CONNECTION !== CALLS_IN_FLIGHT_PER_CONNECTION)
  throw new Error(
    `calls in flight per connection: ${CALLS_PER_CONNECTION} here, ${CALLS_IN_FLIGHT_PER_CONNECTION} in shared`,
  );

/**
 * One connection's calls in flight. A call past the bound is answered at once, before admission or any store round
 * trip. socket.io has no back-pressure of its own on what a socket sends, and frames already read must be answered,
 * so the cheapest answer is what bounds them (the socket server also stops reading the socket for a moment,
 * read-pause.ts). A client that waits for its answers never meets the bound.
 */
export class CallsInFlight {
  private now = 0;

  constructor(private readonly max = CALLS_PER_CONNECTION) {}

  /** Takes a slot for one call: the release to call once it is answered (only the first call counts), or undefined. */
  take(): (() => void) | undefined {
    if (this.now >= this.max) return undefined;
    this.now += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.now -= 1;
    };
  }

  /** The answer to a call past the bound. */
  refusal(): ErrorShape {
    return {
      code: 'RESOURCE_EXHAUSTED',
      message:
        `Too many calls in flight on this connection: ${this.now} are not answered yet (limit ${this.max}). ` +
        'Wait for some of their answers before sending more.',
      details: { kind: 'callsInFlight', in_flight: this.now, limit: this.max },
    };
  }
}
