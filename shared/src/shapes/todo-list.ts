import { z } from 'zod';

export const TODO_LIST_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const TODO_LIST_ACTIONS = ['create', 'update', 'list'] as const;

/** A seed-001 item as stored and returned: the seed's three fields plus whatever else the model sent. */
export const TodoListItemSchema = z
  .object({ content: z.string(), activeForm: z.string(), status: z.enum(TODO_LIST_STATUSES) })
  .loose();
export type TodoListItem = z.infer<typeof TodoListItemSchema>;
