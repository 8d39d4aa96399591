import type { CallAck } from '@planhub/shared';
import type { RawClient } from './raw-client.ts';

/** Unwraps a successful answer; a failed one fails the test with the server's message. */
export const ok = <T = Record<string, unknown>>(ack: CallAck, what: string): T => {
  if (!ack.ok) throw new Error(`${what} failed: ${ack.error.code} ${ack.error.message}`);
  return ack.result as T;
};

export type PlanState = 'pending' | 'awaiting' | 'started';

export interface SeedOptions {
  /** The 000 plan's state; awaiting needs a policy other than auto. */
  plan?: PlanState;
  /**
   * Seed 002 instead of a 000 plan: `planning` leaves the agent in plan mode (plan_enter only), `executing` with an
   * approved plan-mode plan (then `planId` is that plan).
   */
  planMode?: 'planning' | 'executing';
}

export interface Seeded {
  /** The agent's 000 plan (or its 002 plan when planMode). */
  planId: string;
  /** A seed-004 plan of the agent. */
  indexedPlanId: string;
  /** Task ids the agent created (003; tasks are shared by the workspace). */
  taskIds: string[];
  /** One event subscription of the agent. */
  subscriptionId: string;
}

/**
 * Gives an agent one of everything: a 000 plan in the requested state, a 004 plan, a 001 list, a 002 list and two
 * tasks, each carrying `marker` in its text so a leak of this data into another workspace can be searched for.
 * `approver` decides approvals when the policy needs one (the agent itself under owner-or-user).
 */
export const seedAgent = async (
  agent: RawClient,
  marker: string,
  options: SeedOptions = {},
  approver: RawClient = agent,
): Promise<Seeded> => {
  const state = options.plan ?? 'started';
  const taskIds: string[] = [];
  const subscriptionId = ok<{ subscription_id: string }>(
    await agent.call('subscribeToTasks', { agent_id: '*', event_types: ['plan_created', 'step_completed'] }),
    'subscribeToTasks',
  ).subscription_id;
  for (const n of [1, 2]) {
    const created = ok<{ task: { id: string } }>(
      await agent.call('TaskCreate', { subject: `task ${n} ${marker}`, description: `do ${marker}` }),
      'TaskCreate',
    );
    taskIds.push(created.task.id);
  }
  ok(
    await agent.call('todo', {
      action: 'create',
      todos: [{ content: `todo ${marker}`, activeForm: `doing ${marker}`, status: 'pending' }],
    }),
    'todo',
  );
  ok(
    await agent.call('todo_write', {
      todos: [{ id: 't1', content: `item ${marker}`, status: 'pending', priority: 'high' }],
    }),
    'todo_write',
  );
  let planId: string;
  const done = async (planId: string): Promise<Seeded> => ({
    planId,
    indexedPlanId: await indexedPlanOf(agent, marker),
    taskIds,
    subscriptionId,
  });
  if (options.planMode) {
    ok(await agent.call('plan_enter', { goal: `goal ${marker}` }), 'plan_enter');
    if (options.planMode === 'planning') return done('');
    const exited = ok<{ plan_id: string; awaiting_approval: boolean }>(
      await agent.call('plan_exit', {
        plan: {
          summary: `plan ${marker}`,
          approach: 'carefully',
          steps: [
            { id: 1, description: `first ${marker}` },
            { id: 2, description: 'second', depends_on: [1] },
          ],
        },
      }),
      'plan_exit',
    );
    planId = exited.plan_id;
    if (exited.awaiting_approval)
      ok(await approver.call('plan_approve', approver === agent ? {} : { plan_id: planId }), 'plan_approve (002)');
    return done(planId);
  }
  planId = ok<{ plan_id: string }>(
    await agent.call('createPlan', { title: `plan ${marker}`, steps: [`one ${marker}`, 'two', 'three'] }),
    'createPlan',
  ).plan_id;
  if (state === 'pending') return done(planId);
  const started = ok<{ status: string }>(await agent.call('startPlan', { wait: false }), 'startPlan');
  if (state === 'awaiting' || started.status === 'in_progress') return done(planId);
  ok(await approver.call('plan_approve', approver === agent ? {} : { plan_id: planId }), 'plan_approve');
  return done(planId);
};

/** Seed 004 plans are made last: a started 004 plan would make createPlan (000) refuse a second started plan. */
const indexedPlanOf = async (agent: RawClient, marker: string): Promise<string> =>
  ok<{ plan_id: string }>(
    await agent.call('create_plan', {
      title: `p4 ${marker}`,
      steps: [{ description: `s ${marker}` }, { description: 'b' }],
    }),
    'create_plan',
  ).plan_id;
