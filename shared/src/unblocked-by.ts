import type { UnblockedBy } from './event-payloads.ts';
import type { EventOf } from './events.ts';

/**
 * The step whose end made a `step_unblocked` event's step ready, always as `{ agent_id, plan_id, step_id }`. The
 * payload's own `unblocked_by` stays typed as the object or the string `"<agent_id>:<step_id>"`: every server now
 * writes the object, but a log keeps events written before it, and a subscription replays them. The string form
 * carried no plan, so `plan_id` is null for it.
 */
export const unblockedBy = ({ payload }: Pick<EventOf<'step_unblocked'>, 'payload'>): UnblockedBy => {
  const by = payload.unblocked_by;
  if (typeof by !== 'string') return by;
  // Agent ids may contain ":", so the agent named beside the string, when the event has it, is the exact split.
  // Without it the last ":" is: the server makes every step id (`step_<n>`), and none contains one.
  const agent = payload.unblocked_by_agent;
  const at = agent !== undefined && by.startsWith(`${agent}:`) ? agent.length : by.lastIndexOf(':');
  return at < 0
    ? { agent_id: by, plan_id: null, step_id: '' }
    : { agent_id: by.slice(0, at), plan_id: null, step_id: by.slice(at + 1) };
};
