// A consumer's TypeScript, checked with `tsc --strict` under NodeNext against the installed package.
import { connect, PlanHubError, type EventEnvelope, type PlanHubClient, type ToolResult } from '@planhub/client-sdk';

export const run = async (url: string): Promise<string[]> => {
  const client: PlanHubClient = await connect({ url, agentId: 'typed', connectTimeoutMs: 2000 });
  const seen: EventEnvelope[] = [];
  client.onEvent('step_unblocked', (event) => seen.push(event));
  const plan: ToolResult<'createPlan'> = await client.createPlan({ title: 'Typed', steps: ['One'] });
  const strict = client.tools('000', { strict: true });
  try {
    await client.setStepStatus({ step_id: 'step_1', status: 'completed' });
  } catch (err) {
    if (err instanceof PlanHubError && err.code === 'FAILED_PRECONDITION') return [err.message];
  } finally {
    client.close();
  }
  return [plan.plan_id, ...strict.openai.map((tool) => tool.function.name), ...seen.map((e) => e.event_id)];
};
