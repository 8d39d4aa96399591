import { randomBytes } from 'node:crypto';
import type { Plan } from '@planhub/shared';
import type { Store } from '@planhub/server';
import { createLogger, createRedisStore, newPlan, savePlan, transact } from '@planhub/server';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const planId = () => [...randomBytes(8)].map((b) => ALPHABET[b % ALPHABET.length]).join('');

/** Plans per seeded agent: many agents with a long history each, like a workspace that has run for a while. */
export const PLANS_PER_AGENT = 100;
const STEPS = ['Read the code', 'Write the change', 'Run the tests', 'Fix what broke', 'Report back'];

/** A 5-step plan: finished ones completed with results, the agent's newest one in progress. */
const seededPlan = (workspace: string, agentId: string, at: Date, current: boolean): Plan => {
  const now = at.toISOString();
  const plan = newPlan({
    plan_id: planId(),
    workspace,
    agent_id: agentId,
    title: `seeded work ${now}`,
    dialect: '000',
    steps: STEPS.map((description) => ({ description })),
    now,
  });
  plan.status = current ? 'in_progress' : 'completed';
  plan.started_at = now;
  if (!current) plan.completed_at = now;
  plan.steps.forEach((step, i) => {
    if (current && i >= 2) return;
    step.status = 'completed';
    step.result = `${step.description}: done`;
    step.started_at = now;
    step.completed_at = now;
  });
  return plan;
};

/**
 * Stores `count` plans in `workspace` directly through the store's transaction/commit (no sockets, no events):
 * PLANS_PER_AGENT plans per agent, written with the server's own savePlan so the agent documents and the workspace's
 * agent index are exactly what tool calls would have left. Agents are written a batch per commit.
 */
export const seedPlans = async (
  store: Store,
  workspace: string,
  count: number,
  agentPrefix = 'seeded',
): Promise<void> => {
  const agents = Math.ceil(count / PLANS_PER_AGENT);
  const agentsPerCommit = 10;
  const start = Date.now() - 30 * 24 * 3600 * 1000;
  let written = 0;
  for (let first = 0; first < agents; first += agentsPerCommit) {
    const batch: Plan[] = [];
    for (let a = first; a < Math.min(agents, first + agentsPerCommit); a++) {
      const agentId = `${agentPrefix}-${a}`;
      const plans = Math.min(PLANS_PER_AGENT, count - written);
      for (let p = 0; p < plans; p++)
        batch.push(seededPlan(workspace, agentId, new Date(start + (written + p) * 1000), p === plans - 1));
      written += plans;
    }
    await transact(store, workspace, async (tx) => {
      for (const plan of batch) await savePlan(tx, plan);
    });
  }
};

/**
 * Seeds through a store of its own that lives only while seeding: a store subscribes to every node's events, and
 * the load generator must not spend the run receiving them.
 */
export const seedWorkspace = async (redis: { url: string; prefix: string }, workspace: string, count: number) => {
  const store = createRedisStore({
    url: redis.url,
    prefix: redis.prefix,
    eventRetention: 10_000,
    log: createLogger('warn'),
  });
  try {
    await seedPlans(store, workspace, count);
  } finally {
    await store.close();
  }
};
