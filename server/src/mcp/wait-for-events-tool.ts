import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { EventIdSchema } from '@planhub/shared';
import { z } from 'zod';

export const WAIT_FOR_EVENTS = 'waitForEvents';

/** Bounded so a wait always ends well inside the tool-call timeouts of MCP hosts. */
export const MAX_WAIT_S = 30;

export const WaitForEventsArgsSchema = z.object({
  timeout: z
    .number()
    .min(0)
    .max(MAX_WAIT_S)
    .default(20)
    .describe(`Seconds to wait when nothing is there yet (0-${MAX_WAIT_S}, default 20). 0 returns at once.`),
  limit: z.number().int().min(1).max(100).default(20).describe('At most this many events (default 20).'),
  after_event: EventIdSchema.optional().describe(
    'Continue after this event id (last_event_id of an earlier answer), e.g. in a new session after the old one ' +
      'expired. Without it: after the last event this session returned.',
  ),
});
export type WaitForEventsArgs = z.output<typeof WaitForEventsArgsSchema>;

export const WAIT_FOR_EVENTS_TOOL: Tool = {
  name: WAIT_FOR_EVENTS,
  description:
    'Wait for your next events: those matching your subscriptions (subscribeToTasks), plus the approval decisions ' +
    '(plan_approved, plan_rejected) on your own plans. Returns as soon as there are any, oldest first, or empty ' +
    'after `timeout` seconds; each event is returned once per session, so call it again for the next ones. Use it ' +
    'to wait for step_unblocked instead of polling plans.',
  inputSchema: {
    ...(z.toJSONSchema(WaitForEventsArgsSchema, { io: 'input' }) as Record<string, unknown>),
    type: 'object',
  },
  annotations: { readOnlyHint: true },
};
