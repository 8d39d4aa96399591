import type { CallBudget } from '../../store/call-budget.ts';
import { documents } from '../../store/documents/documents.ts';
import { counterKeys, docKeys, setKeys } from '../../store/keys.ts';
import type { Store } from '../../store/store.ts';
import { transact } from '../../store/transact.ts';
import { registerAgent } from '../planhub/agent-index.ts';

/** Workspaces seen without the one-document task list, per store: nothing writes one any more. */
const upgraded = new WeakMap<Store, Set<string>>();

/**
 * Splits a workspace's task list from the one document of earlier versions (`tasks`: high-water mark and every task)
 * into per-task documents, the id and open-task sets and the id counter, in one commit before the first task call
 * that reaches it (a running deployment upgrades in place; two nodes doing it at once conflict on `tasks`).
 */
export const ensureTasksUpgraded = async (store: Store, workspace: string, budget?: CallBudget): Promise<void> => {
  let seen = upgraded.get(store);
  if (!seen) upgraded.set(store, (seen = new Set()));
  const known = seen;
  if (known.has(workspace)) return;
  await transact(
    store,
    workspace,
    async (tx) => {
      const legacy = await tx.read(documents.legacyTasks);
      if (!legacy) {
        known.add(workspace);
        return;
      }
      const tasks = Object.values(legacy.tasks);
      for (const task of tasks) tx.put(docKeys.task(task.id), task);
      const ids = tasks.map((t) => t.id);
      const open = tasks.filter((t) => t.status !== 'completed').map((t) => t.id);
      if (ids.length > 0) tx.op({ op: 'sadd', key: setKeys.taskIds(), members: ids });
      if (open.length > 0) tx.op({ op: 'sadd', key: setKeys.openTasks(), members: open });
      const { counters } = await tx.collections({ counters: [counterKeys.taskIds()] });
      const gap = legacy.high_water - (counters[0] ?? 0);
      if (gap > 0) tx.op({ op: 'incr', key: counterKeys.taskIds(), by: gap });
      // Builds of that layout before a5c5e73 (0.1.0 among them) listed every task owner among the workspace's agents
      // and registered no task caller: an owner that created a task of the list, so an agent that called a task
      // tool, is registered now, as its next task call would. A name given only as an owner stays on its tasks.
      const creators = new Set(tasks.map((t) => t.created_by));
      const owners = new Set(tasks.flatMap((t) => (t.owner !== undefined && creators.has(t.owner) ? [t.owner] : [])));
      for (const agent of owners) await registerAgent(tx, agent);
      tx.delete(docKeys.tasks());
    },
    { budget },
  );
};
