import type { AgentSummary, Plan } from '@planhub/shared';
import type { AgentDoc } from '../../core/agents/agent-doc.ts';
import { emptyAgent } from '../../core/agents/agent-doc.ts';
import { currentPlanOf, overviewPlanIds, pendingApproval, planSummary } from '../../core/workspace/overview.ts';
import { modeFromDoc, tasksFromDoc, todosFromDoc } from '../../core/workspace/side-lists.ts';
import { docKeys } from '../../store/keys.ts';
import type { ToolHandlers } from '../context.ts';
import { loadAgentIndex } from './agent-index.ts';

const PER_AGENT_DOCS = 4;

/**
 * The dashboard's and `planhub watch`'s starting state. The log position is read BEFORE the documents, so the
 * overview is at least as new as `last_event_id`: a client that subscribes after it sees every later change (some
 * twice, which applying events idempotently absorbs), never misses one.
 */
export const getWorkspace: ToolHandlers['getWorkspace'] = async (ctx, args) => {
  const { caller, services } = ctx;
  const [last] = await services.store.readEvents(caller.workspace, { count: 1 });
  return ctx.transact(async (tx) => {
    const index = await loadAgentIndex(tx);
    const agentIds = args.agent_id === undefined ? index : [args.agent_id];
    const docs = await tx.getMany([
      docKeys.tasks(),
      ...agentIds.flatMap((id) => [docKeys.agent(id), docKeys.todos001(id), docKeys.todos002(id), docKeys.mode002(id)]),
    ]);
    const tasks = tasksFromDoc(docs[0]);
    const perAgent = agentIds.map((id, i) => {
      const [agent, todos001, todos002, mode] = docs.slice(1 + i * PER_AGENT_DOCS, 1 + (i + 1) * PER_AGENT_DOCS);
      const agentDoc = (agent as AgentDoc | undefined) ?? emptyAgent(id);
      return {
        agent: agentDoc,
        planIds: overviewPlanIds(agentDoc, args.plans_per_agent),
        todos: [...todosFromDoc(todos001), ...todosFromDoc(todos002)],
        mode: modeFromDoc(mode),
      };
    });
    const plans = (await tx.getMany(perAgent.flatMap((a) => a.planIds.map((id) => docKeys.plan(id))))) as (
      Plan | undefined
    )[];
    const byId = new Map(plans.filter((p) => p !== undefined).map((p) => [p.plan_id, p]));
    const agents = perAgent.map(({ agent, planIds, todos, mode }): AgentSummary => {
      const own = planIds.map((id) => byId.get(id)).filter((p) => p !== undefined);
      return {
        agent_id: agent.agent_id,
        current_plan_id: currentPlanOf(agent),
        plans: own.map(planSummary),
        pending_approvals: own.map(pendingApproval).filter((p) => p !== undefined),
        pending_modifications: [],
        mode,
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
