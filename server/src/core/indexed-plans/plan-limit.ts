import { fail } from '@planhub/shared';
import type { AgentDoc } from '../agents/agent-doc.ts';

/**
 * plansPerAgent bounds an agent's unfinished plans on every path that adds one: create_plan, and update_plan
 * reopening a completed plan (it counts again). The refusal is the same on both, so a model learns one remedy.
 */
export const requireRoomForPlan = (agent: AgentDoc, limit: number, callerId: string): void => {
  const unfinished = agent.plans.filter((p) => !p.finished).length;
  if (unfinished + 1 <= limit) return;
  const who = agent.agent_id === callerId ? 'You have' : `Agent ${agent.agent_id} has`;
  fail(
    'RESOURCE_EXHAUSTED',
    `${who} ${unfinished} unfinished plans (limit ${limit}). Finish old plans first: mark their remaining steps ` +
      'completed or skipped with update_plan.',
  );
};
