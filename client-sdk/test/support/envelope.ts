/** An event envelope as a node sends it, from step_2 ("merge") of main's plan p1: only the type and payload vary. */
export const envelope = <T extends string, P>(event_type: T, payload: P) => ({
  event_id: '1-0',
  event_type,
  timestamp: '2026-01-01T00:00:00.000Z',
  workspace: 'ws',
  source_agent: 'main',
  source_plan_id: 'p1',
  source_plan_title: 'P',
  source_step_id: 'step_2',
  source_step_description: 'merge',
  source_step_sequence: 2,
  payload,
});
