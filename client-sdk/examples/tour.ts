// The README's 30-second tour: one agent registers a plan, relays its user's approval and reports progress.
// Run a node first (`npx --yes pnpm@10 start`), then: `npx tsx --conditions=planhub-source client-sdk/examples/tour.ts [url]`.
// The node's URL comes from the first argument, else PLANHUB_URL, else http://127.0.0.1:4000. Run it as often as you
// like: a plan left by an earlier run is ended first, so every run starts the same way.
import { PlanHubError, connect } from '@planhub/client-sdk';

const url = process.argv[2] ?? process.env.PLANHUB_URL ?? 'http://127.0.0.1:4000';
const workspace = process.env.PLANHUB_WORKSPACE ?? 'default';

// connect() gives up after its deadline with UNAVAILABLE naming the URL; the tour says what to do about it.
const agent = await connect({ url, workspace, agentId: 'main', connectTimeoutMs: 5000 }).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  console.error('Start a node first (npx --yes pnpm@10 start), or pass its URL:');
  console.error('  npx tsx --conditions=planhub-source client-sdk/examples/tour.ts http://127.0.0.1:<port>');
  process.exit(1);
});
try {
  // An agent has one unfinished plan at a time: the previous run's plan is ended rather than recreated.
  const previous = await agent.getPlanStatus({}).catch((err: unknown) => {
    if (err instanceof PlanHubError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  });
  if (previous && !['completed', 'failed', 'cancelled', 'rejected'].includes(previous.status)) {
    await agent.completePlan({ plan_id: previous.plan_id, status: 'cancelled', summary: 'Replaced by a new tour run' });
    console.log(`(ended the previous run's plan ${previous.plan_id})`);
  }
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
} catch (err) {
  console.error(err instanceof PlanHubError ? `PlanHub refused: ${err.message}` : err);
  process.exitCode = 1;
} finally {
  agent.close();
}
