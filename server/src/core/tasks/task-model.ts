import type { NewEvent, TaskView } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { agentEvent } from '../plans/plan-events.ts';

export type Task = TaskView;

/** The workspace's seed-003 task list: one document, so every change to it (edges included) is one atomic write. */
export interface TaskDoc {
  /** Highest id ever given out: ids are never reused, not even after the list is cleaned. */
  high_water: number;
  tasks: Record<string, Task>;
  /**
   * Every task id of the workspace, for a view that holds only some tasks and will be refused NOT_FOUND: what the
   * message names, without reading every task (a missing id read the whole list, 25 MB for one refusal).
   */
  known?: readonly string[];
}

export const emptyTaskDoc = (): TaskDoc => ({ high_water: 0, tasks: {} });

export interface TaskContext {
  workspace: string;
  agent_id: string;
  now: string;
}

const ID = /^\d+$/;

/** Checks a task id's form (the seed's message) and drops leading zeros, so "01" names task 1. */
export const parseTaskId = (tool: string, id: string, what = 'task'): string => {
  if (!ID.test(id)) fail('INVALID_ARGUMENT', `${tool} validate ${what} ID failed, err: invalid format: ${id}`);
  return id.replace(/^0+(?=\d)/, '');
};

/** Numeric order (upstream sorted "10" before "2"). */
export const byId = (a: Pick<Task, 'id'>, b: Pick<Task, 'id'>): number =>
  a.id.length !== b.id.length ? a.id.length - b.id.length : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export const sortedTasks = (doc: TaskDoc): Task[] => Object.values(doc.tasks).sort(byId);

const existingTasks = (ids: readonly string[]): string =>
  ids.length === 0
    ? 'The task list is empty; create tasks with TaskCreate.'
    : `Existing tasks: ${ids
        .map((id) => ({ id }))
        .sort(byId)
        .map((t) => `#${t.id}`)
        .join(', ')}.`;

/**
 * The task `id`, or NOT_FOUND. `failed` is upstream's message for the read that failed, up to where upstream passed on
 * its file backend's error (e.g. "TaskGet get Task #9 failed, err: "); PlanHub says why there and names the tasks
 * that exist.
 */
export const requireTask = (doc: TaskDoc, id: string, failed: string): Task =>
  doc.tasks[id] ??
  fail('NOT_FOUND', `${failed}Task #${id} not found. ` + existingTasks(doc.known ?? Object.keys(doc.tasks)));

export const taskEvent = (
  ctx: TaskContext,
  type: 'task_created' | 'task_updated' | 'task_deleted' | 'task_unblocked',
  task: Pick<Task, 'id' | 'subject'>,
  payload: Record<string, unknown>,
): NewEvent => agentEvent(ctx, type, { task_id: task.id, subject: task.subject, ...payload });
