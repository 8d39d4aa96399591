import type { PlanHubError, Role } from '@planhub/shared';
import type { BackoffOptions } from './backoff.ts';

export type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'closed';

export type StateInfo = {
  reason?: string;
  url?: string;
  /**
   * `closed`: the node's refusal that closed the client, when one did (UNAUTHENTICATED for an expired token, say).
   * `disconnected`: why the node closed the connection, when it said so (its `disconnect_reason`). A slow
   * consumer (the application did not take its events while the node queued more than its limit) is
   * RESOURCE_EXHAUSTED with `details` `{ reason: 'slow_consumer', queued_bytes, limit_bytes }`. The client
   * reconnects and resumes after the last event it handed over either way; `reason` is then the node's message.
   */
  error?: PlanHubError;
};

export interface ConnectOptions {
  /** One URL, or several nodes to fail over between. */
  url: string | readonly string[];
  workspace?: string;
  agentId: string;
  role?: Role;
  /** Secret mode: a signed token (or a function that fetches a fresh one for every connection). */
  token?: string | (() => string | Promise<string>);
  /**
   * How long one fetch of `token` (a function) may take; past it the attempt counts as failed and the client dials
   * again with backoff, so a token source that never answers cannot stop reconnection. Default 5 s.
   */
  tokenTimeoutMs?: number;
  /**
   * How long connect() tries (every URL, with backoff) before it rejects with UNAVAILABLE naming the URLs tried and
   * why each failed. Default 10 s. A refusal of the credentials (UNAUTHENTICATED, PERMISSION_DENIED) rejects at once.
   */
  connectTimeoutMs?: number;
  /** Sees every connection state from the first attempt on (`connecting` comes before connect() resolves). */
  onState?: (state: ConnectionState, info: StateInfo) => void;
  /**
   * Each attempt's timeout (a long-poll's wait comes on top); startPlan waits for the user without one. Default 15 s.
   * A call's own `timeoutMs` (CallOptions) is instead one deadline for the call and all of its retries.
   */
  timeoutMs?: number;
  /** How often a retryable failure (UNAVAILABLE, DEADLINE_EXCEEDED) is retried. Default 8 (rides out a Redis restart). */
  retries?: number;
  backoff?: BackoffOptions;
  /** Between failed renewals of the subscriptions after a reconnect (retried until they succeed). Default 250 ms–5 s. */
  renewalBackoff?: BackoffOptions;
}

export interface CallOptions {
  /**
   * One deadline for the whole call, retries included: no attempt is sent once it has passed, a long-poll's
   * `timeout` is cut to end before it, and a startPlan is sent with `wait: false` (the node's wait for a decision
   * has no bound). Past it the call fails DEADLINE_EXCEEDED "no answer within <timeoutMs> ms". Without it each
   * attempt has the client's `timeoutMs` (plus a long-poll's wait), and a startPlan waits for the decision.
   */
  timeoutMs?: number;
  requestId?: string;
  /** How often a retryable failure of this call is retried (default: the client's `retries`). */
  retries?: number;
}
