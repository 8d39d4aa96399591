import { z } from 'zod';

export const TODO_001_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const TODO_001_ACTIONS = ['create', 'update', 'list'] as const;

/** A seed-001 item as stored and returned: the seed's three fields plus whatever else the model sent. */
export const Todo001Schema = z
  .object({ content: z.string(), activeForm: z.string(), status: z.enum(TODO_001_STATUSES) })
  .loose();
export type Todo001 = z.infer<typeof Todo001Schema>;
