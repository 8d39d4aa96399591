// A parent and its subagent, run with plain `node` against the installed package: the parent's step waits on the
// subagent's step and unblocks with its output. Prints the step_unblocked event and the output the parent received.
import { connect } from '@planhub/client-sdk';

const url = process.env.PLANHUB_URL;
const workspace = 'packaged';
const parent = await connect({ url, workspace, agentId: 'parent', connectTimeoutMs: 5000 });
const subagent = await connect({ url, workspace, agentId: 'subagent', connectTimeoutMs: 5000 });
try {
  await parent.createPlan({ title: 'Ship the feature', steps: ['Spawn the subagent'] });
  await parent.startPlan({});
  await subagent.createPlan({ title: 'Research', steps: ['Collect the facts'] });
  const unblocked = new Promise((resolve) => parent.onEvent('step_unblocked', resolve));
  await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
  const dependent = await parent.addDependentStep({
    description: 'Merge the research',
    depends_on: [{ agent_id: 'subagent', step_id: 'step_1' }],
  });
  await subagent.startPlan({});
  await subagent.completeStepWithOutput({ step_id: 'step_1', output: { facts: ['packaged', 'plain node'] } });
  const event = await unblocked;
  const status = await parent.getPlanStatus({});
  const step = status.steps.find((s) => s.step_id === dependent.step_id);
  console.log(JSON.stringify({ event, received: step?.received_outputs }));
} finally {
  parent.close();
  subagent.close();
}
