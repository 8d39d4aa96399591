import type { NewEvent } from '@planhub/shared';
import { TASK_UPDATE_STATUSES, fail } from '@planhub/shared';
import { withoutNulls } from './task-create.ts';
import type { NewEdge } from './task-edges.ts';
import { checkEdges, linkTasks, unlinkFrom } from './task-edges.ts';
import type { Task, TaskContext, TaskDoc } from './task-model.ts';
import { byId, parseTaskId, requireTask, sortedTasks, taskEvent } from './task-model.ts';

export interface TaskUpdateInput {
  taskId: string;
  subject?: string | undefined;
  description?: string | undefined;
  activeForm?: string | undefined;
  status?: string | undefined;
  addBlocks?: readonly string[] | undefined;
  addBlockedBy?: readonly string[] | undefined;
  owner?: string | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

export interface TaskUpdateOutcome {
  /** The new list, or undefined when nothing changed (no write, no event). */
  doc?: TaskDoc;
  result: string;
  task?: Task;
  unblocked: string[];
  cleaned_up: boolean;
  events: NewEvent[];
}

const TOOL = 'TaskUpdate';
/**
 * The released upstream stores any status; PlanHub refuses an unknown one ("" leaves it unchanged), in the words of
 * upstream's later validation.
 */
const parseStatus = (s: string): (typeof TASK_UPDATE_STATUSES)[number] | '' =>
  s === '' || (TASK_UPDATE_STATUSES as readonly string[]).includes(s)
    ? (s as (typeof TASK_UPDATE_STATUSES)[number] | '')
    : fail(
        'INVALID_ARGUMENT',
        `${TOOL} invalid task status: ${s}. Valid statuses: ${TASK_UPDATE_STATUSES.join(', ')} (or omit it).`,
      );

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const unique = (ids: readonly string[]) => [...new Set(ids)];

/** Removes `id` from every other task's edges; returns the tasks touched and those it was the last blocker of. */
const detach = (doc: TaskDoc, id: string, ctx: TaskContext, reason: string) => {
  const events: NewEvent[] = [];
  const unblocked: string[] = [];
  for (const other of sortedTasks(doc)) {
    if (other.id === id) continue;
    const { changed, freed } = unlinkFrom(other, id);
    if (changed.length === 0) continue;
    other.updated_at = ctx.now;
    events.push(taskEvent(ctx, 'task_updated', other, { updated_fields: changed, task: other, cause_task_id: id }));
    if (freed) {
      unblocked.push(other.id);
      events.push(taskEvent(ctx, 'task_unblocked', other, { unblocked_by: id, reason, task: other }));
    }
  }
  return { events, unblocked };
};

/** A completed blocker's edges are resolved: it leaves its dependents' open blockers, and theirs only. */
const resolveDependents = (doc: TaskDoc, blocker: Task, ctx: TaskContext) => {
  const events: NewEvent[] = [];
  const unblocked: string[] = [];
  for (const dependentId of blocker.blocks) {
    const dependent = doc.tasks[dependentId];
    if (!dependent?.blockedBy.includes(blocker.id)) continue;
    dependent.blockedBy = dependent.blockedBy.filter((x) => x !== blocker.id);
    dependent.updated_at = ctx.now;
    events.push(
      taskEvent(ctx, 'task_updated', dependent, {
        updated_fields: ['blockedBy'],
        task: dependent,
        cause_task_id: blocker.id,
      }),
    );
    if (dependent.blockedBy.length === 0 && dependent.status !== 'completed') {
      unblocked.push(dependent.id);
      events.push(
        taskEvent(ctx, 'task_unblocked', dependent, {
          unblocked_by: blocker.id,
          reason: 'blocker_completed',
          task: dependent,
        }),
      );
    }
  }
  blocker.blocks = [];
  return { events, unblocked };
};

/** The events of seed 003's automatic cleanup of `tasks` (every task of the list, all completed). */
export const cleanupEvents = (tasks: readonly Task[], ctx: TaskContext): NewEvent[] =>
  [...tasks].sort(byId).map((t) => taskEvent(ctx, 'task_deleted', t, { reason: 'all_completed' }));

/**
 * Seed 003's automatic cleanup, after a call that completed a task: when every task is completed the list empties;
 * the high-water mark stays.
 */
const cleanIfAllCompleted = (doc: TaskDoc, ctx: TaskContext): NewEvent[] | undefined => {
  const all = sortedTasks(doc);
  if (all.length === 0 || all.some((t) => t.status !== 'completed')) return undefined;
  doc.tasks = {};
  return cleanupEvents(all, ctx);
};

/**
 * `whole`: `current` is the whole list, and the all-completed cleanup runs here. `part`: it holds the task, the
 * tasks named by the call, their edge neighbours and every task the cycle check walks; the caller runs the cleanup
 * (it needs every task) and `task` is always returned.
 */
export type TaskScope = 'whole' | 'part';

const deleteTask = (current: TaskDoc, id: string, ctx: TaskContext): TaskUpdateOutcome => {
  const doc = structuredClone(current);
  const task = requireTask(doc, id, `${TOOL} read Task #${id} failed, err: `);
  delete doc.tasks[id];
  const detached = detach(doc, id, ctx, 'blocker_deleted');
  // No cleanup: upstream cleans only after a completion, so the completed tasks a deletion leaves stay listed.
  return {
    doc,
    result: `Updated task #${id} deleted`,
    unblocked: detached.unblocked,
    cleaned_up: false,
    events: [taskEvent(ctx, 'task_deleted', task, { reason: 'deleted' }), ...detached.events],
  };
};

/**
 * TaskUpdate. Every id and every new edge is checked before anything changes, and the whole list is written at
 * once, so a refused call leaves no partial edge behind (upstream wrote edges one file at a time).
 */
export const updateTask = (
  current: TaskDoc,
  input: TaskUpdateInput,
  ctx: TaskContext,
  view: TaskScope = 'whole',
): TaskUpdateOutcome => {
  const id = parseTaskId(TOOL, input.taskId);
  const status = parseStatus(input.status ?? '');
  requireTask(current, id, `${TOOL} read Task #${id} failed, err: `);
  if (status === 'deleted') return deleteTask(current, id, ctx);

  const blocks = unique((input.addBlocks ?? []).map((b) => parseTaskId(TOOL, b, 'blocked task')));
  const blockedBy = unique((input.addBlockedBy ?? []).map((b) => parseTaskId(TOOL, b, 'blocking task')));
  // Upstream's words for a missing edge target: the edge is written on the target first, so that read fails.
  for (const b of blocks)
    requireTask(
      current,
      b,
      `${TOOL} update Task #${id} blocks failed, err: failed to read task #${b} for updating blockedBy: `,
    );
  for (const b of blockedBy)
    requireTask(
      current,
      b,
      `${TOOL} update Task #${id} blockedBy failed, err: failed to read task #${b} for updating blocks: `,
    );

  const doc = structuredClone(current);
  const task = doc.tasks[id] as Task;
  const before = structuredClone(task);
  const fields: string[] = [];
  if (input.subject) {
    task.subject = input.subject;
    fields.push('subject');
  }
  if (input.description) {
    task.description = input.description;
    fields.push('description');
  }
  if (input.activeForm) {
    task.activeForm = input.activeForm;
    fields.push('activeForm');
  }
  if (status !== '') {
    task.status = status;
    fields.push('status');
  }

  const edges: NewEdge[] = [
    ...blocks.map((b) => ({
      waiter: b,
      blocker: id,
      refusal: `${TOOL} adding Task #${b} to blocks of Task #${id} would create a cyclic dependency`,
    })),
    ...blockedBy.map((b) => ({
      waiter: id,
      blocker: b,
      refusal: `${TOOL} adding Task #${b} to blockedBy of Task #${id} would create a cyclic dependency`,
    })),
  ];
  const kept = checkEdges(doc, edges);
  const events: NewEvent[] = [];
  const touched = new Map<string, Set<string>>();
  for (const edge of kept) {
    const waiter = doc.tasks[edge.waiter] as Task;
    const blocker = doc.tasks[edge.blocker] as Task;
    if (!linkTasks(waiter, blocker)) continue;
    for (const [t, field] of [
      [waiter, 'blockedBy'],
      [blocker, 'blocks'],
    ] as const)
      if (t.id !== id) touched.set(t.id, (touched.get(t.id) ?? new Set()).add(field));
  }
  if (blocks.length > 0) fields.push('blocks');
  if (blockedBy.length > 0) fields.push('blockedBy');
  if (input.owner) {
    task.owner = input.owner;
    fields.push('owner');
  }
  if (input.metadata) {
    const merged = { ...task.metadata, ...input.metadata };
    for (const [k, v] of Object.entries(input.metadata)) if (v === null) delete merged[k];
    const clean = withoutNulls(merged);
    if (Object.keys(clean).length > 0) task.metadata = clean;
    else delete task.metadata;
    fields.push('metadata');
  }

  const result = fields.length > 0 ? `Updated task #${id} ${fields.join(', ')}` : `Updated task #${id} (no changes)`;
  if (sameJson(before, task) && touched.size === 0)
    return { result, task: before, unblocked: [], cleaned_up: false, events: [] };

  task.updated_at = ctx.now;
  for (const [otherId, changed] of touched) {
    const other = doc.tasks[otherId] as Task;
    other.updated_at = ctx.now;
    events.push(
      taskEvent(ctx, 'task_updated', other, { updated_fields: [...changed], task: other, cause_task_id: id }),
    );
  }
  let unblocked: string[] = [];
  // Completing a blocker resolves its edges: dependents whose last open blocker it was are free to start.
  if (before.status !== 'completed' && task.status === 'completed') {
    const resolved = resolveDependents(doc, task, ctx);
    events.push(...resolved.events);
    unblocked = resolved.unblocked;
  }
  events.unshift(taskEvent(ctx, 'task_updated', task, { updated_fields: fields, task }));
  const cleaned = task.status === 'completed' && view === 'whole' ? cleanIfAllCompleted(doc, ctx) : undefined;
  if (cleaned) events.push(...cleaned);
  return {
    doc,
    result,
    ...(cleaned ? {} : { task }),
    unblocked,
    cleaned_up: cleaned !== undefined,
    events,
  };
};
