import { withinBudget } from '../../store/call-budget.ts';
import type { AgentSummary } from '@planhub/shared';
import type { AgentDoc } from '../../core/agents/agent-doc.ts';
import { emptyAgent } from '../../core/agents/agent-doc.ts';
import { currentPlanOf, overviewPlanIds, pendingApproval, planSummary } from '../../core/workspace/overview.ts';
import { modeOf, pendingModificationsOf, tasksOf, todosOf } from '../../core/workspace/side-lists.ts';
import { loadTaskCounts } from '../task-list/task-state.ts';
import { ensureTasksUpgraded } from '../task-list/task-upgrade.ts';
import { documents } from '../../store/documents/documents.ts';
import { docKeys } from '../../store/keys.ts';
import type { ToolHandlers } from '../context.ts';
import { readPlans } from '../live-plans.ts';
import { decodeModeDoc, modeReadKeys } from '../plan-mode/mode-access.ts';
import { loadAgentIndex } from './agent-index.ts';

/**
 * The dashboard's and `planhub watch`'s starting state, in four round trips whatever the workspace holds. The log
 * position is read BEFORE the documents, so the overview is at least as new as `last_event_id`: a client that
 * subscribes after it sees every later change (some twice, which applying events idempotently absorbs).
 */
export const getWorkspace: ToolHandlers['getWorkspace'] = async (ctx, args) => {
  const { caller, services } = ctx;
  const [last] = await withinBudget(ctx.budget, () => services.store.readEvents(caller.workspace, { count: 1 }));
  await ensureTasksUpgraded(services.store, caller.workspace, ctx.budget);
  return ctx.transact(async (tx) => {
    const [index, taskCounts] = await Promise.all([loadAgentIndex(tx), loadTaskCounts(tx)]);
    // Agents come from the index alone (task tools register their callers); a task owner is free text, and a name
    // nobody connected as stays on its tasks rather than becoming an agent entry.
    const agentIds = args.agent_id === undefined ? index : [args.agent_id];
    // The task documents come with the agents' documents, in the same round trip; so do the agents' modes stored by
    // builds before 534ad52 (mode-access.ts), read where the current key is absent.
    const keys = agentIds.flatMap((id) => [docKeys.agent(id), docKeys.todoList(id), docKeys.persistentTodos(id)]);
    const modes = modeReadKeys(agentIds);
    const [, taskDocs] = await Promise.all([
      tx.prefetch({ checked: [...keys, ...modes.checked], unchecked: modes.unchecked }),
      tx.readMany(
        documents.task,
        taskCounts.ids.map((id) => [id]),
      ),
    ]);
    const [docs, modeDocs, legacyModeDocs] = await Promise.all([
      tx.getMany(keys),
      tx.getMany(modes.checked),
      tx.getUnchecked(modes.unchecked),
    ]);
    const tasks = tasksOf({
      high_water: taskCounts.highWater,
      tasks: Object.fromEntries(taskDocs.filter((t) => t !== undefined).map((t) => [t.id, t])),
    });
    const perAgent = agentIds.map((id, i) => {
      const [agent, todoList, persistentTodos] = docs.slice(i * 3, i * 3 + 3);
      const agentDoc: AgentDoc = documents.agent.decode(docKeys.agent(id), agent) ?? emptyAgent(id);
      const modeDoc = decodeModeDoc(tx, id, modeDocs[i], legacyModeDocs[i]);
      const planIds = overviewPlanIds(agentDoc, args.plans_per_agent);
      return {
        agent: agentDoc,
        planIds,
        // 002's mode is derived from the plan plan_exit made, which may be older than the plans shown.
        wanted: modeDoc?.plan_id && !planIds.includes(modeDoc.plan_id) ? [...planIds, modeDoc.plan_id] : planIds,
        todos: todosOf(
          documents.todoList.decode(docKeys.todoList(id), todoList),
          documents.persistentTodos.decode(docKeys.persistentTodos(id), persistentTodos),
        ),
        modeDoc,
      };
    });
    const loaded = await readPlans(
      tx,
      perAgent.flatMap((a) => a.wanted),
    );
    const plans = new Map(loaded.filter((p) => p !== undefined).map((p) => [p.plan_id, p]));
    const agents = perAgent.map(({ agent, planIds, todos, modeDoc }): AgentSummary => {
      const own = planIds.map((id) => plans.get(id)).filter((p) => p !== undefined);
      return {
        agent_id: agent.agent_id,
        current_plan_id: currentPlanOf(agent),
        plans: own.map(planSummary),
        pending_approvals: own.map(pendingApproval).filter((p) => p !== undefined),
        pending_modifications: pendingModificationsOf(own),
        mode: modeOf(modeDoc, plans),
        todos,
        tasks: tasks.filter((t) => t.owner === agent.agent_id),
      };
    });
    return {
      workspace: caller.workspace,
      agents,
      tasks,
      last_event_id: last?.event_id ?? null,
      generated_at: services.now(),
    };
  });
};
