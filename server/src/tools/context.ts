import type { Caller, Subscription, ToolAnswer, ToolName, ToolParsedArgs, ToolResult } from '@planhub/shared';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import type { CallLimiter } from '../limits/call-limiter.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { Store } from '../store/store.ts';
import type { WaitSlots } from '../limits/wait-slots.ts';
import type { CallBudget } from '../store/call-budget.ts';
import type { Tx } from '../store/transaction.ts';

/** What every handler can reach; built once per server. */
export interface Services {
  store: Store;
  hub: EventHub;
  config: ServerConfig;
  log: Logger;
  now: () => string;
  newId: () => string;
  /** Per-agent call budget (docs/security.md), shared across nodes on the Redis store. */
  callLimiter: CallLimiter;
  /** This node's open long-poll waits per agent (limits/wait-slots.ts). */
  waitSlots: WaitSlots;
  /** The index of workspaces (listWorkspaces); absent in a bare dispatch. */
  workspaces?: { workspaces(): Promise<string[]> };
  /** listTools' answer: every tool's description and JSON Schema, optionally one dialect's. */
  catalog: (dialect?: string) => ToolResult<'listTools'>;
}

/** One call: who makes it, and the transaction runner that applies `request_id` idempotency. */
export interface CallContext {
  caller: Caller;
  services: Services;
  /** Aborted when the caller's connection goes away. */
  signal: AbortSignal;
  /** The call's request_id, for tools that recognise their own retries (those not answered from the request log). */
  requestId?: string;
  /** Per-connection state a transport may attach (subscriptions, cursors). */
  connection?: ConnectionHooks;
  /** Runs `body` as one atomic change; with a request_id, a retry returns the first answer. */
  transact<R>(body: (tx: Tx) => Promise<R>): Promise<R>;
  /**
   * Charges work found while running (log entries scanned) to the caller's call budget. Never refuses this call,
   * whose work is done: the units count against the next ones. Absent where there is no budget.
   */
  chargeWork?(units: number): Promise<void>;
  /** What the call may still spend on the store (store/call-budget.ts), for store operations made outside `transact`. */
  budget?: CallBudget | undefined;
}

/** How tools reach the caller's live connection, when there is one. */
export interface ConnectionHooks {
  /**
   * Adds a subscription to the connection's event stream; the first one starts the stream (replaying history after
   * `afterEvent`, if given, then live). Returns how many events were replayed, the stream's position, and whether
   * the stream was already running (then nothing before its position is replayed).
   */
  onSubscribed?: (
    subscription: Subscription,
    afterEvent: string | undefined,
  ) => Promise<{ replayed: number; last_event_id: string; already_live: boolean }>;
  onUnsubscribed?: (subscriptionIds: readonly string[]) => void;
  /**
   * Set by transports whose callers time calls out (MCP hosts): a call that would wait for a person answers at once
   * instead, with `next` telling the model how to learn the outcome.
   */
  noLongWaits?: { next: string };
}

export type ToolHandler<N extends ToolName> = (ctx: CallContext, args: ToolParsedArgs<N>) => Promise<ToolAnswer<N>>;

export type ToolHandlers = { [N in ToolName]: ToolHandler<N> };
