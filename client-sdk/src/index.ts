export { PlanHubClientCore } from './client.ts';
export type { ConnectOptions, CallOptions, ConnectionState, StateInfo } from './connect-options.ts';
export { connect, createClient, attachToolMethods } from './connect.ts';
export type { PlanHubClient, ReservedName } from './connect.ts';
export { backoffDelay } from './backoff.ts';
export type { SubscriptionState, SubscriptionStateInfo } from './renewal.ts';
export { HELD_EVENTS_LIMIT } from './event-inbox.ts';
export { PlanHubError, formatSubagentEvent, renderPlanText, unblockedBy } from '@planhub/shared';
export type {
  EventEnvelope,
  EventOf,
  EventType,
  SubagentEventInput,
  TaskEvent,
  ErrorCode,
  ToolArgs,
  ToolResult,
  ToolName,
  UnblockedBy,
} from '@planhub/shared';
export * from './llm/index.ts';
