import type { Tx } from '../../store/transaction.ts';
import { createTask } from '../../core/tasks/task-create.ts';
import type { TaskContext, TaskDoc } from '../../core/tasks/task-model.ts';
import { emptyTaskDoc, parseTaskId, requireTask, sortedTasks } from '../../core/tasks/task-model.ts';
import { taskGetText, taskListText } from '../../core/tasks/task-text.ts';
import { updateTask } from '../../core/tasks/task-update.ts';
import { checkShape } from '../../limits/json-shape.ts';
import { docKeys } from '../../store/keys.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import { registerAgent } from '../planhub/agent-index.ts';

const loadTasks = async (tx: Tx): Promise<TaskDoc> => (await tx.get<TaskDoc>(docKeys.tasks())) ?? emptyTaskDoc();

const taskContext = (ctx: CallContext): TaskContext => ({
  workspace: ctx.caller.workspace,
  agent_id: ctx.caller.agent_id,
  now: ctx.services.now(),
});

/** Metadata merges key by key over many calls: the merged object is what must stay within the output limits. */
const checkMetadata = (ctx: CallContext, metadata: unknown) => {
  const { outputBytes, outputDepth } = ctx.services.config.limits;
  if (metadata !== undefined) checkShape('metadata', metadata, { maxBytes: outputBytes, maxDepth: outputDepth });
};

/**
 * An agent that works only with tasks is one of the workspace's agents; a task owner is free text and is not (the
 * overview lists agents from the index alone, so owners can't fabricate agent entries).
 */
const registerCaller = (ctx: CallContext, tx: Tx) =>
  ctx.caller.role === 'agent' ? registerAgent(tx, ctx.caller.agent_id) : Promise.resolve();

/** Seed 003: one task list per workspace, shared by its agents. */
const TaskCreate: ToolHandlers['TaskCreate'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const outcome = createTask(
      await loadTasks(tx),
      args,
      taskContext(ctx),
      ctx.services.config.limits.tasksPerWorkspace,
    );
    checkMetadata(ctx, outcome.task.metadata);
    tx.put(docKeys.tasks(), outcome.doc);
    tx.emit(...outcome.events);
    await registerCaller(ctx, tx);
    return { result: outcome.result, task: outcome.task };
  });

const TaskGet: ToolHandlers['TaskGet'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const task = requireTask(await loadTasks(tx), 'TaskGet', parseTaskId('TaskGet', args.taskId));
    return { result: taskGetText(task), task };
  });

/**
 * Deleting a task that does not exist answers as upstream does (its delete has no existence check): the goal, no
 * such task, holds. Nothing changes and no event is published.
 */
const deletedAlready = (doc: TaskDoc, args: { taskId: string; status?: string | undefined }) =>
  args.status === 'deleted' && doc.tasks[parseTaskId('TaskUpdate', args.taskId)] === undefined
    ? { result: `Updated task #${args.taskId} deleted`, unblocked: [], cleaned_up: false }
    : undefined;

const TaskUpdate: ToolHandlers['TaskUpdate'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const doc = await loadTasks(tx);
    const gone = deletedAlready(doc, args);
    if (gone) return gone;
    const outcome = updateTask(doc, args, taskContext(ctx));
    checkMetadata(ctx, outcome.task?.metadata);
    if (outcome.doc) tx.put(docKeys.tasks(), outcome.doc);
    tx.emit(...outcome.events);
    if (outcome.doc) await registerCaller(ctx, tx);
    return {
      result: outcome.result,
      ...(outcome.task ? { task: outcome.task } : {}),
      unblocked: outcome.unblocked,
      cleaned_up: outcome.cleaned_up,
    };
  });

const TaskList: ToolHandlers['TaskList'] = (ctx) =>
  ctx.transact(async (tx) => {
    const tasks = sortedTasks(await loadTasks(tx));
    return { result: taskListText(tasks), tasks };
  });

export const dialect003Handlers = { TaskCreate, TaskGet, TaskUpdate, TaskList } satisfies Partial<ToolHandlers>;
