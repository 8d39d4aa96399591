// A parent agent and its subagent, end to end, on a node with default settings (approval policy owner-or-user):
// the parent adds a step that waits on the subagent's step, and that step unblocks with the subagent's output.
//
// From the checkout, with a node running (`npx --yes pnpm@10 start`):
//   npx tsx --tsconfig examples/tsconfig.json examples/fan-in.mjs [url]
// In your own project, after installing @planhub/client-sdk: `node fan-in.mjs [url]`.
// The URL comes from the first argument, else PLANHUB_URL, else http://127.0.0.1:4000; the workspace from
// PLANHUB_WORKSPACE, else `default`. Open mode (no PLANHUB_SECRET), as `pnpm start` runs a node.
import { randomUUID } from 'node:crypto';
import { PlanHubError, connect, unblockedBy } from '@planhub/client-sdk';

const url = process.argv[2] ?? process.env.PLANHUB_URL ?? 'http://127.0.0.1:4000';
const workspace = process.env.PLANHUB_WORKSPACE ?? 'default';
// A dependency named without plan_id binds to the subagent's newest plan holding that step: a fresh subagent id per
// run keeps a second run from unblocking at once on the first run's finished step.
const run = randomUUID().slice(0, 4);
const parentId = `parent-${run}`;
const subagentId = `researcher-${run}`;
const DEADLINE_MS = 30_000;

const clients = [];
const open = async (agentId, role = 'agent') => {
  const client = await connect({ url, workspace, agentId, role, connectTimeoutMs: 5000 });
  clients.push(client);
  return client;
};

try {
  // In a real deployment each of these is its own process; one script keeps the round trip in view.
  const parent = await open(parentId);
  const subagent = await open(subagentId);
  const user = await open('alice', 'user');

  // startPlan waits for a person's decision unless told not to; here the person is `user`, a client with role
  // "user", as the dashboard or `planhub approve <plan_id>` would be. Under policy "auto" the plan starts at once.
  const start = async (agent, agentId) => {
    const started = await agent.startPlan({ wait: false });
    if (started.status === 'awaiting_approval') {
      await user.plan_approve({ plan_id: started.plan_id });
      console.log(`${agentId}: plan ${started.plan_id} approved by alice`);
    } else console.log(`${agentId}: plan ${started.plan_id} started at once`);
  };

  await parent.createPlan({ title: 'Ship the feature', steps: ['Spawn the researcher'] });
  await start(parent, parentId);

  // The listener is in place before the subscription, so no event it waits for can come first.
  const unblocked = new Promise((resolve) => {
    const off = parent.onEvent('step_unblocked', (event) => {
      if (unblockedBy(event).agent_id !== subagentId) return;
      off();
      resolve(event);
    });
  });
  await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
  // The subagent has no plan yet: the dependency waits for the step to appear, then for it to end.
  const waiting = await parent.addDependentStep({
    description: 'Merge the research',
    depends_on: [{ agent_id: subagentId, step_id: 'step_1' }],
  });
  console.log(`${parentId}: ${waiting.step_id} is ${waiting.status}, waiting on ${subagentId}:step_1`);
  await parent.setStepStatus({ step_id: 'step_1', status: 'completed', result: `Spawned ${subagentId}` });

  await subagent.createPlan({ title: 'Research', steps: ['Collect the facts'] });
  await start(subagent, subagentId);
  const output = { facts: ['one parent', 'one subagent', 'one output'] };
  await subagent.completeStepWithOutput({ step_id: 'step_1', output, result: 'Facts collected' });
  console.log(`${subagentId}: step_1 completed`);

  let timer;
  const event = await Promise.race([
    unblocked,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no step_unblocked within ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  console.log(`${parentId}: ${event.source_step_id} unblocked, received ${JSON.stringify(event.payload.outputs)}`);

  await parent.setStepStatus({ step_id: waiting.step_id, status: 'completed', result: 'Research merged' });
  await parent.completePlan({ status: 'completed', summary: 'Shipped with the research' });
  await subagent.completePlan({ status: 'completed', summary: 'Research delivered' });
} catch (err) {
  console.error(err instanceof PlanHubError ? `${err.code}: ${err.message}` : err);
  if (err instanceof PlanHubError && err.code === 'UNAVAILABLE')
    console.error('Start a node first (npx --yes pnpm@10 start), or pass its URL as the first argument.');
  process.exitCode = 1;
} finally {
  for (const client of clients) client.close();
}
