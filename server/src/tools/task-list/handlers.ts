import type { Tx } from '../../store/transaction.ts';
import { createTask, refuseTaskPastLimit, withoutNulls } from '../../core/tasks/task-create.ts';
import type { TaskContext } from '../../core/tasks/task-model.ts';
import { parseTaskId, requireTask, sortedTasks } from '../../core/tasks/task-model.ts';
import { taskGetText, taskListText } from '../../core/tasks/task-text.ts';
import { checkShape } from '../../limits/json-shape.ts';
import { boundRefusal } from '../../store/transact.ts';
import { documents } from '../../store/documents/documents.ts';
import { counterKeys, docKeys, setKeys } from '../../store/keys.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import { registerAgent } from '../planhub/agent-index.ts';
import { applyTaskUpdate } from './task-update-call.ts';
import { loadAllTasks, loadTaskCounts } from './task-state.ts';
import { ensureTasksUpgraded } from './task-upgrade.ts';

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

const upgraded = (ctx: CallContext) => ensureTasksUpgraded(ctx.services.store, ctx.caller.workspace, ctx.budget);

/**
 * Seed 003: one task list per workspace, shared by its agents, one document per task. The id is drawn from the
 * counter by an increment of its own, committed before the task (upstream, too, writes its high-water mark first),
 * so concurrent creates never contend: each writes its own new `task:<id>`. The limit is checked on the id set as
 * read, before drawing (a refusal burns no id), and exactly by the set's bound in the commit.
 */
const TaskCreate: ToolHandlers['TaskCreate'] = async (ctx, args) => {
  await upgraded(ctx);
  const limit = ctx.services.config.limits.tasksPerWorkspace;
  try {
    return await ctx.transact(async (tx) => {
      // The caller's index is read with the request log's answer, which the draw asks for first.
      const [{ ids }] = await Promise.all([loadTaskCounts(tx), registerCaller(ctx, tx)]);
      if (ids.length >= limit) refuseTaskPastLimit(ids.length, limit);
      // Every refusal comes before the draw, so none burns an id.
      checkMetadata(ctx, args.metadata ? withoutNulls(args.metadata) : undefined);
      const id = await tx.draw(counterKeys.taskIds());
      const outcome = createTask({ high_water: id - 1, tasks: {} }, args, taskContext(ctx), limit, ids.length);
      tx.put(docKeys.task(outcome.task.id), outcome.task);
      tx.op(
        { op: 'sadd', key: setKeys.taskIds(), members: [outcome.task.id], max: limit },
        { op: 'sadd', key: setKeys.openTasks(), members: [outcome.task.id] },
      );
      tx.emit(...outcome.events);
      return { result: outcome.result, task: outcome.task };
    });
  } catch (err) {
    const refused = boundRefusal(err);
    if (refused?.set === setKeys.taskIds()) refuseTaskPastLimit(refused.size, limit);
    throw err;
  }
};

const TaskGet: ToolHandlers['TaskGet'] = async (ctx, args) => {
  await upgraded(ctx);
  return ctx.transact(async (tx) => {
    const id = parseTaskId('TaskGet', args.taskId);
    // A missing task reads the ids, for the message naming the tasks that exist (not every task: see TaskDoc.known).
    const task =
      (await tx.read(documents.task, id)) ??
      requireTask(
        { high_water: 0, tasks: {}, known: (await loadTaskCounts(tx)).ids },
        id,
        `TaskGet get Task #${id} failed, err: `,
      );
    return { result: taskGetText(task), task };
  });
};

/**
 * Deleting a task that does not exist answers as upstream does (its delete has no existence check): the goal, no
 * such task, holds. Nothing changes and no event is published.
 */
const deletedAlready = async (tx: Tx, args: { taskId: string; status?: string | undefined }) =>
  args.status === 'deleted' && (await tx.read(documents.task, parseTaskId('TaskUpdate', args.taskId))) === undefined
    ? { result: `Updated task #${args.taskId} deleted`, task: undefined, unblocked: [] as string[], cleaned_up: false }
    : undefined;

const TaskUpdate: ToolHandlers['TaskUpdate'] = async (ctx, args) => {
  await upgraded(ctx);
  const answer = await ctx.transact(async (tx) => {
    const gone = await deletedAlready(tx, args);
    if (gone) return gone;
    const outcome = await applyTaskUpdate(tx, args, taskContext(ctx));
    checkMetadata(ctx, outcome.task?.metadata);
    if (outcome.changed) await registerCaller(ctx, tx);
    return {
      result: outcome.result,
      ...(outcome.task ? { task: outcome.task } : {}),
      unblocked: outcome.unblocked,
      // A token when the cleanup is a fan-in: the store completes it (true when it ran, null when not).
      cleaned_up: outcome.cleaned_up as boolean,
    };
  });
  // The cleaned list holds no task to show.
  const cleaned = answer.cleaned_up === true;
  const { task, ...rest } = answer;
  return { ...rest, ...(task && !cleaned ? { task } : {}), cleaned_up: cleaned };
};

const TaskList: ToolHandlers['TaskList'] = async (ctx) => {
  await upgraded(ctx);
  return ctx.transact(async (tx) => {
    const tasks = sortedTasks(await loadAllTasks(tx));
    return { result: taskListText(tasks), tasks };
  });
};

export const taskListHandlers = { TaskCreate, TaskGet, TaskUpdate, TaskList } satisfies Partial<ToolHandlers>;
