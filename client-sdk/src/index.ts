export { connect, PlanHubClientCore } from './client.ts';
export type { PlanHubClient, ConnectOptions, CallOptions, ConnectionState } from './client.ts';
export { backoffDelay } from './backoff.ts';
export { PlanHubError, renderPlanText } from '@planhub/shared';
export type { EventEnvelope, ToolArgs, ToolResult, ToolName } from '@planhub/shared';
export * from './llm/index.ts';
