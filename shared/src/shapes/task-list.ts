import { z } from 'zod';

export const TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const TASK_UPDATE_STATUSES = [...TASK_STATUSES, 'deleted'] as const;

/** A seed-003 task as stored (the seed's fields) plus when and by whom it was made. */
export const TaskViewSchema = z
  .object({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    status: z.enum(TASK_STATUSES),
    /** Open tasks that wait on this one (a completed blocker's edges are resolved and dropped). */
    blocks: z.array(z.string()),
    /** Open tasks this one waits on; empty = free to start. */
    blockedBy: z.array(z.string()),
    activeForm: z.string().optional(),
    owner: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    created_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .loose();
export type TaskView = z.infer<typeof TaskViewSchema>;
