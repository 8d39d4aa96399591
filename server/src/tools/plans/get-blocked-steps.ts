import type { ToolHandlers } from '../context.ts';
import { resolvePlan } from '../plan-access.ts';

/** Seed 000's getBlockedSteps: the steps of a plan (default: your current one) still waiting on other agents. */
export const getBlockedSteps: ToolHandlers['getBlockedSteps'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const plan = await resolvePlan(tx, ctx.caller, { plan_id: args.plan_id }, 'read', 'getBlockedSteps');
    const blocked = plan.steps
      .filter((s) => s.status === 'blocked')
      .map((s) => ({
        step_id: s.id,
        sequence: s.sequence,
        description: s.description,
        blocked_by: s.blocked_by ?? [],
        depends_on: s.depends_on ?? [],
        received_outputs: s.received_outputs ?? {},
      }));
    return blocked.length === 0
      ? { plan_id: plan.plan_id, blocked_steps: [], count: 0, message: 'No blocked steps' }
      : { plan_id: plan.plan_id, blocked_steps: blocked, count: blocked.length };
  });
