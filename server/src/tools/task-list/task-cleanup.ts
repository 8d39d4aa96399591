import { randomId } from '../../core/random-id.ts';
import type { TaskContext, TaskDoc } from '../../core/tasks/task-model.ts';
import { cleanupEvents } from '../../core/tasks/task-update.ts';
import { documents } from '../../store/documents/documents.ts';
import { docKeys, setKeys } from '../../store/keys.ts';
import type { DocRead, FanIn } from '../../store/store.ts';
import type { Tx } from '../../store/transaction.ts';
import { loadTaskCounts } from './task-state.ts';

/** A read no document can pass: a fan-in carrying it makes its commit re-run when it fires. */
const NEVER: DocRead = { key: docKeys.tasks(), version: -1 };

/**
 * Seed 003's cleanup (a task completed and so is every other: the list empties, the id counter stays) without a
 * workspace-wide document: task `id`, just completed, leaves the set of open tasks through a fan-in, and only the
 * commit that empties the set deletes the list. That commit's `then` is prepared from every task, read here without a
 * check; its reads check them when it fires (and that no task was created since, by the next id; a create that drew an
 * id before that count was read is not seen by it, and is left listed rather than deleted unseen). When `id` is not the
 * last open task as read, the `then` is not prepared (a completion racing others would read every task for nothing): if
 * it does fire, because the others completed meanwhile, the commit conflicts and re-runs, and then prepares it.
 *
 * Returns the token the call's `cleaned_up` carries (true when the cleanup ran, null when not).
 */
export const leaveOpenTasks = async (tx: Tx, after: TaskDoc, id: string, ctx: TaskContext): Promise<string> => {
  const token = `@@planhub:cleaned:${randomId()}@@`;
  const { ids, open, highWater } = await loadTaskCounts(tx);
  const then: FanIn['then'] = { reads: [NEVER], writes: [], ops: [], events: [], fills: [] };
  const fanIn: FanIn = { set: setKeys.openTasks(), member: id, then, answer: { token, value: true } };
  if (open.length === 1 && open[0] === id) {
    const unread = ids.filter((other) => !after.tasks[other]);
    const loaded = await tx.peekVersions(unread.map(docKeys.task));
    const tasks = [
      ...ids.map((other) => after.tasks[other]).filter((t) => t !== undefined),
      ...loaded
        .map((doc, i) => documents.task.decode(docKeys.task(unread[i] ?? ''), doc.value))
        .filter((t) => t !== undefined),
    ].filter((t) => t.status === 'completed');
    fanIn.then = {
      reads: [
        ...unread.map((other, i) => ({ key: docKeys.task(other), version: loaded[i]?.version ?? 0 })),
        { key: docKeys.task(String(highWater + 1)), version: 0 },
      ],
      writes: tasks.map((t) => ({ key: docKeys.task(t.id), value: null })),
      // The ids as read, not the whole set: a task created since (its id drawn, then committed) stays listed.
      ops: [{ op: 'srem', key: setKeys.taskIds(), members: ids }],
      events: cleanupEvents(tasks, ctx),
      fills: [],
    };
  }
  tx.fanIn(fanIn);
  return token;
};
