/**
 * A team member in its own process, for the dashboard's presence test: it connects with the SDK, starts a plan with
 * one step in progress, prints "ready" and waits. The test SIGKILLs it, as when an agent's machine dies.
 * Usage: node --conditions=planhub-source --import tsx dashboard-agent.ts <url> <agent_id>
 */
import { connect } from '@planhub/client-sdk';

const [url, agentId] = process.argv.slice(2);
if (!url || !agentId) throw new Error('usage: dashboard-agent.ts <url> <agent_id>');
const client = await connect({ url, agentId, workspace: 'ws' });
await client.createPlan({ title: `Work of ${agentId}`, steps: ['Think', 'Write'] });
await client.startPlan({});
await client.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
process.stdout.write('ready\n');
setInterval(() => undefined, 60_000);
