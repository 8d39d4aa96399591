import { z } from 'zod';
import { EventTypeSchema } from './events.ts';

/**
 * A stored event subscription (seed 000's subscribeToTasks), kept per subscribing agent. `agent_id` is the filter:
 * whose events match ("*" = any agent), not the owner.
 */
export const SubscriptionSchema = z.object({
  subscription_id: z.string(),
  agent_id: z.string(),
  event_types: z.array(EventTypeSchema),
  plan_id: z.string().optional(),
  step_id: z.string().optional(),
  created_at: z.string(),
  /**
   * The log's newest event when the subscription was made: what matched it is what came after (listSubscriptions'
   * match_count). Absent on subscriptions stored before it existed, which count from created_at.
   */
  created_after_event: z.string().optional(),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;
