// A parent and its subagent, run with plain `node` against the installed package: the parent's step waits on the
// subagent's step and unblocks with its output. Prints the step_unblocked event and the output the parent received.
// The sequence of examples/fan-in.mjs, so it runs on a node with default settings too: a plan waits for a person's
// approval there, given here by a client with role "user".
import { connect } from '@planhub/client-sdk';

const url = process.env.PLANHUB_URL;
const workspace = 'packaged';
const open = (agentId, role = 'agent') => connect({ url, workspace, agentId, role, connectTimeoutMs: 5000 });
const [parent, subagent, user] = await Promise.all([open('parent'), open('subagent'), open('alice', 'user')]);

/** Starts the agent's plan without waiting for the decision, then decides it as the user when it waits for one. */
const start = async (agent) => {
  const started = await agent.startPlan({ wait: false });
  if (started.status === 'awaiting_approval') await user.plan_approve({ plan_id: started.plan_id });
};

try {
  await parent.createPlan({ title: 'Ship the feature', steps: ['Spawn the subagent'] });
  await start(parent);
  await subagent.createPlan({ title: 'Research', steps: ['Collect the facts'] });
  const unblocked = new Promise((resolve) => parent.onEvent('step_unblocked', resolve));
  await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
  const dependent = await parent.addDependentStep({
    description: 'Merge the research',
    depends_on: [{ agent_id: 'subagent', step_id: 'step_1' }],
  });
  await start(subagent);
  await subagent.completeStepWithOutput({ step_id: 'step_1', output: { facts: ['packaged', 'plain node'] } });
  const event = await unblocked;
  const status = await parent.getPlanStatus({});
  const step = status.steps.find((s) => s.step_id === dependent.step_id);
  console.log(JSON.stringify({ event, received: step?.received_outputs }));
} finally {
  parent.close();
  subagent.close();
  user.close();
}
