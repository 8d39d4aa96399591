import type { TaskContext, TaskDoc } from '../../core/tasks/task-model.ts';
import type { TaskUpdateInput } from '../../core/tasks/task-update.ts';
import { updateTask } from '../../core/tasks/task-update.ts';
import { setKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';
import { leaveOpenTasks } from './task-cleanup.ts';
import { addReachable, addTasks, loadTaskCounts, writeTaskChanges } from './task-state.ts';

/** A well-formed id without leading zeros, or undefined (the pure code then gives the seed's message). */
const idOf = (raw: string) => (/^\d+$/.test(raw) ? raw.replace(/^0+(?=\d)/, '') : undefined);

/**
 * The tasks TaskUpdate works on: the task, the tasks it names, the neighbours its deletion or completion changes and
 * every task the cycle check walks, each read through the transaction (so checked at the commit). A malformed or
 * missing id is refused before anything changes, with the seed's message naming the tasks that exist: the view then
 * carries their ids only. A deletion ignores the edges it names (updateTask returns before reading them).
 */
const loadView = async (tx: Tx, input: TaskUpdateInput): Promise<TaskDoc> => {
  const edges = input.status === 'deleted' ? [] : [...(input.addBlocks ?? []), ...(input.addBlockedBy ?? [])];
  const named = [input.taskId, ...edges].map(idOf);
  const ids = named.filter((id) => id !== undefined);
  const view: TaskDoc = { high_water: 0, tasks: {} };
  const missing = await addTasks(tx, view, ids);
  if (ids.length < named.length || missing.length > 0) return { ...view, known: (await loadTaskCounts(tx)).ids };
  const task = view.tasks[ids[0] ?? ''];
  if (!task) return view;
  if (input.status === 'deleted') await addTasks(tx, view, [...task.blocks, ...task.blockedBy]);
  else if (input.status === 'completed' && task.status !== 'completed') await addTasks(tx, view, task.blocks);
  if (ids.length > 1) await addReachable(tx, view, ids);
  return view;
};

/**
 * TaskUpdate on the tasks it touches: writes only the tasks that changed, keeps the set of open tasks, and hands the
 * all-completed cleanup of a completion to the fan-in on that set (`cleaned_up` is then its token).
 */
export const applyTaskUpdate = async (tx: Tx, input: TaskUpdateInput, ctx: TaskContext) => {
  const view = await loadView(tx, input);
  const outcome = updateTask(view, input, ctx, 'part');
  const id = idOf(input.taskId) ?? '';
  const wasOpen = view.tasks[id]?.status !== 'completed';
  let cleanedUp: boolean | string = false;
  if (outcome.doc) {
    writeTaskChanges(tx, view, outcome.doc);
    const now = outcome.doc.tasks[id];
    // Only a completion cleans (upstream's rule): a deleted open task leaves the set without the fan-in.
    if (wasOpen && !now) tx.op({ op: 'srem', key: setKeys.openTasks(), members: [id] });
    else if (wasOpen && now?.status === 'completed') cleanedUp = await leaveOpenTasks(tx, outcome.doc, id, ctx);
    else if (!wasOpen && now && now.status !== 'completed')
      tx.op({ op: 'sadd', key: setKeys.openTasks(), members: [id] });
  }
  tx.emit(...outcome.events);
  return { ...outcome, cleaned_up: cleanedUp, changed: outcome.doc !== undefined };
};
