import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import { eventOf } from '@planhub/shared';
import { shouldPush } from '../events/match.ts';

/**
 * The decision on one of the agent's own plans: over MCP startPlan answers before the user decides, so the agent
 * learns the decision from waitForEvents without having to subscribe to it first.
 */
const isOwnDecision = (caller: Caller, event: EventEnvelope): boolean =>
  (eventOf(event, 'plan_approved') ?? eventOf(event, 'plan_rejected'))?.payload.agent_id === caller.agent_id;

/** Which events an MCP session hands its agent: the socket push rules, plus its own plans' decisions. */
export const sessionMatcher =
  (caller: Caller, subscriptions: Iterable<Subscription>) =>
  (event: EventEnvelope): boolean =>
    event.workspace === caller.workspace && (isOwnDecision(caller, event) || shouldPush(caller, subscriptions, event));
