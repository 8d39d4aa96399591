import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import type { Harness } from '../helpers/servers.ts';

/** Seed 002's plan object: summary, approach, steps with files, dependencies and verification, risks, files, tests. */
export const AUTH_PLAN = {
  summary: 'Add JWT authentication to the API',
  approach: 'Middleware that validates tokens, applied to every protected route',
  alternatives_considered: ['Session cookies: rejected, the API is stateless'],
  steps: [
    {
      id: 1,
      description: 'Write the token validation middleware',
      files: ['src/auth.ts'],
      verification: 'npm test auth',
    },
    { id: 2, description: 'Apply it to protected routes', files: ['src/routes.ts'], depends_on: [1] },
    { id: 3, description: 'Document the auth header', files: ['README.md'], depends_on: [1, 2] },
  ],
  risks: [{ risk: 'Clock skew breaks expiry checks', mitigation: '30 s leeway' }],
  files_to_create: ['src/auth.ts'],
  files_to_modify: ['src/routes.ts', 'README.md'],
  tests_to_write: ['auth middleware rejects expired tokens'],
  estimated_complexity: 'medium' as const,
};

/** A dashboard sees every event; the helper collects them for assertions. */
export const watch = async (h: Harness) => {
  const board = await h.client('board', { role: 'dashboard' });
  const events: EventEnvelope[] = [];
  board.on('event', (e) => events.push(e));
  await board.subscribeToTasks({
    agent_id: '*',
    event_types: [
      'mode_changed',
      'plan_created',
      'plan_approval_requested',
      'plan_approved',
      'plan_rejected',
      'plan_modified',
      'plan_completed',
      'step_completed',
      'step_skipped',
      'step_unblocked',
    ],
  });
  return { board, events, of: (type: string) => events.filter((e) => e.event_type === type) };
};

export const enterAndPresent = async (agent: PlanHubClient, plan = AUTH_PLAN) => {
  await agent.plan_enter({ goal: 'Add authentication', scope: 'src/' });
  return agent.plan_exit({ plan });
};
