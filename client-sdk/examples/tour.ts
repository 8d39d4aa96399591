// The README's 30-second tour: one agent registers a plan, relays its user's approval and reports progress.
// Run a node first (`npx --yes pnpm@10 start`), then: `npx tsx --conditions=source client-sdk/examples/tour.ts`.
import { connect } from '@planhub/client-sdk';

const url = process.env.PLANHUB_URL ?? 'http://127.0.0.1:4000';
const agent = await connect({ url, workspace: 'default', agentId: 'main' });
try {
  await agent.createPlan({
    title: 'Refactor auth module',
    steps: ['Review auth code', 'Extract token validation', 'Add tests', 'Update imports'],
  });
  // startPlan normally answers when a user decides (dashboard, `planhub approve`); wait: false returns at once.
  await agent.startPlan({ message: 'Ready to proceed?', wait: false });
  await agent.plan_approve({}); // policy owner-or-user: the agent relays its user's "yes"
  await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'Found 3 auth files' });
  const { instruction } = await agent.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
  console.log(instruction);
} finally {
  agent.close();
}
