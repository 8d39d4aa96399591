import type { Task, TaskDoc } from '../../core/tasks/task-model.ts';
import { documents } from '../../store/documents/documents.ts';
import { counterKeys, docKeys, setKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';

/**
 * Seed 003's tasks as stored: one document per task (`task:<id>`, edges on both ends), the set of ids, the set of
 * tasks not completed, and the id counter. A call reads only the tasks it works on, so agents updating distinct
 * tasks never conflict.
 */

/** The workspace's task ids and the highest id ever given out (one round trip, unversioned). */
export const loadTaskCounts = async (tx: Tx) => {
  const { sets, counters } = await tx.collections({
    sets: [setKeys.taskIds(), setKeys.openTasks()],
    counters: [counterKeys.taskIds()],
  });
  return { ids: sets[0] ?? [], open: sets[1] ?? [], highWater: counters[0] ?? 0 };
};

const byIds = (tasks: readonly (Task | undefined)[]): Record<string, Task> =>
  Object.fromEntries(tasks.filter((t) => t !== undefined).map((t) => [t.id, t]));

/** Every task (TaskList, and the exact NOT_FOUND messages): the id set, then the documents. */
export const loadAllTasks = async (tx: Tx): Promise<TaskDoc> => {
  const { ids, highWater } = await loadTaskCounts(tx);
  const tasks = await tx.readMany(
    documents.task,
    ids.map((id) => [id]),
  );
  return { high_water: highWater, tasks: byIds(tasks) };
};

/** Adds the tasks `ids` to `view` (one round trip for those not in it yet); returns those that do not exist. */
export const addTasks = async (tx: Tx, view: TaskDoc, ids: readonly string[]): Promise<string[]> => {
  const wanted = [...new Set(ids)].filter((id) => !view.tasks[id]);
  const loaded = await tx.readMany(
    documents.task,
    wanted.map((id) => [id]),
  );
  Object.assign(view.tasks, byIds(loaded));
  return wanted.filter((_, i) => loaded[i] === undefined);
};

/**
 * Adds every task reachable over `blockedBy` from `from`, one level per round trip: all the cycle check walks.
 * Each is read through the transaction, so an edge added concurrently on the path conflicts with this commit.
 */
export const addReachable = async (tx: Tx, view: TaskDoc, from: readonly string[]): Promise<void> => {
  const seen = new Set(from);
  let frontier = [...from];
  while (frontier.length > 0) {
    await addTasks(tx, view, frontier);
    const next = frontier.flatMap((id) => view.tasks[id]?.blockedBy ?? []).filter((id) => !seen.has(id));
    for (const id of next) seen.add(id);
    frontier = [...new Set(next)];
  }
};

/** Writes the tasks that changed between `before` and `after` and deletes the ones that left it. */
export const writeTaskChanges = (tx: Tx, before: TaskDoc, after: TaskDoc): void => {
  for (const [id, task] of Object.entries(after.tasks))
    if (JSON.stringify(before.tasks[id]) !== JSON.stringify(task)) tx.put(docKeys.task(id), task);
  const gone = Object.keys(before.tasks).filter((id) => !after.tasks[id]);
  for (const id of gone) tx.delete(docKeys.task(id));
  if (gone.length > 0) tx.op({ op: 'srem', key: setKeys.taskIds(), members: gone });
};
