import type { NewEvent } from '@planhub/shared';

/**
 * A step_completed event of about 100 KB (its result), ready to commit straight to a store: about ten of them fill
 * the 1 MiB a page of events, an answer or a push may carry. `overrides` replace its fields (workspace 'ws', agent
 * 'writer' by default).
 */
export const bigEvent = (n: number, overrides: Partial<NewEvent> = {}): NewEvent => ({
  event_type: 'step_completed',
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  workspace: 'ws',
  source_agent: 'writer',
  source_plan_id: 'plan0001',
  source_plan_title: 'big outputs',
  source_step_id: `step_${n}`,
  source_step_description: null,
  source_step_sequence: n,
  payload: { result: 'x'.repeat(100_000), error: null },
  ...overrides,
});
