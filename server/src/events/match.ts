import type { Caller, EventEnvelope, EventType } from '@planhub/shared';

/** What a subscription (or a getTaskEvents call) selects; absent fields and agent "*" match anything. */
export interface EventFilter {
  agent_id?: string | undefined;
  event_types?: readonly EventType[] | undefined;
  plan_id?: string | undefined;
  step_id?: string | undefined;
}

export const matchesFilter = (filter: EventFilter, event: EventEnvelope): boolean =>
  (filter.agent_id === undefined || filter.agent_id === '*' || filter.agent_id === event.source_agent) &&
  (filter.event_types === undefined || filter.event_types.includes(event.event_type)) &&
  (filter.plan_id === undefined || filter.plan_id === event.source_plan_id) &&
  (filter.step_id === undefined || filter.step_id === event.source_step_id);

/**
 * An agent's own events are not pushed back to it: it already has the answer of the call that caused them. The
 * exception is `step_unblocked`: its source is the waiting agent (seed 000), but another agent's step caused it, and
 * it is the wake-up the waiting agent is told to wait for. Users and dashboards get their own events too.
 */
export const isEcho = (viewer: Pick<Caller, 'agent_id' | 'role'>, event: EventEnvelope): boolean => {
  if (viewer.role !== 'agent' || event.source_agent !== viewer.agent_id) return false;
  if (event.event_type !== 'step_unblocked') return true;
  // By exact identity: agent ids may contain ":", so "a:x:step_1" cannot tell agent "a" from agent "a:x". An event
  // without the agent (logged before unblocked_by_agent existed) is delivered: a duplicate wake-up is harmless, a
  // lost one hangs.
  return unblockingAgent(event.payload) === viewer.agent_id;
};

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

/**
 * The agent whose step unblocked: `unblocked_by.agent_id`, or `unblocked_by_agent` in events of the string form;
 * undefined when the payload names none. Only these two fields are read: validating the whole event against its
 * schema, outputs included, cost about 1 % of a fan-in node's CPU on the push path.
 */
const unblockingAgent = (payload: unknown): string | undefined => {
  if (!isRecord(payload)) return undefined;
  const { unblocked_by: by, unblocked_by_agent: named } = payload;
  const agent = typeof by === 'string' ? named : isRecord(by) ? by.agent_id : undefined;
  return typeof agent === 'string' ? agent : undefined;
};

/** Whether a connection of `viewer` with these subscriptions receives `event` as a push. */
export const shouldPush = (
  viewer: Pick<Caller, 'agent_id' | 'role' | 'workspace'>,
  filters: Iterable<EventFilter>,
  event: EventEnvelope,
): boolean => {
  if (event.workspace !== viewer.workspace || isEcho(viewer, event)) return false;
  for (const filter of filters) if (matchesFilter(filter, event)) return true;
  return false;
};

/** A filter in canonical form, so an identical re-subscribe finds the existing subscription. */
export const canonicalFilter = (filter: EventFilter) => ({
  agent_id: filter.agent_id ?? '*',
  event_types: [...new Set(filter.event_types ?? [])].sort(),
  ...(filter.plan_id !== undefined ? { plan_id: filter.plan_id } : {}),
  ...(filter.step_id !== undefined ? { step_id: filter.step_id } : {}),
});

export const sameFilter = (a: EventFilter, b: EventFilter): boolean =>
  JSON.stringify(canonicalFilter(a)) === JSON.stringify(canonicalFilter(b));
