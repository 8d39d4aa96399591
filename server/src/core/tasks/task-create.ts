import type { NewEvent } from '@planhub/shared';
import { fail } from '@planhub/shared';
import type { Task, TaskContext, TaskDoc } from './task-model.ts';
import { taskEvent } from './task-model.ts';

export interface TaskCreateInput {
  subject: string;
  description: string;
  activeForm?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** Keys set to null mean "no value" (as in TaskUpdate), so they are not stored. */
export const withoutNulls = (metadata: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== null));

/** TaskCreate's refusal when the workspace holds `held` tasks, its limit being `limit`. */
export const refuseTaskPastLimit = (held: number, limit: number): never =>
  fail(
    'RESOURCE_EXHAUSTED',
    `TaskCreate refused: the workspace already holds ${held} tasks (limit ${limit}). Complete or delete tasks first.`,
  );

/** TaskCreate: the next id after the high-water mark, status pending, no edges. */
export const createTask = (
  current: TaskDoc,
  input: TaskCreateInput,
  ctx: TaskContext,
  limit: number,
  /** How many tasks the workspace holds (when `current` holds only some of them). */
  open = Object.keys(current.tasks).length,
): { doc: TaskDoc; task: Task; result: string; events: NewEvent[] } => {
  if (open >= limit) refuseTaskPastLimit(open, limit);
  const id = String(current.high_water + 1);
  const metadata = input.metadata ? withoutNulls(input.metadata) : {};
  const task: Task = {
    id,
    subject: input.subject,
    description: input.description,
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...(input.activeForm ? { activeForm: input.activeForm } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    created_by: ctx.agent_id,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  return {
    doc: { high_water: current.high_water + 1, tasks: { ...current.tasks, [id]: task } },
    task,
    result: `Task #${id} created successfully: ${input.subject}`,
    events: [taskEvent(ctx, 'task_created', task, { task })],
  };
};
