import type { EventOf, EventType } from '../src/index.ts';

const progress = {
  completed: 1,
  total: 2,
  percentage: 50,
  percent: 50,
  failed: 0,
  skipped: 0,
  in_progress: 0,
  pending: 1,
  blocked: 0,
};

/**
 * One payload per event type, as the server writes it today. Keyed by every EventType, so a new type does not
 * compile until it has one here, and the tests over all types cover it.
 */
type Payloads = { [T in EventType]: EventOf<T>['payload'] };

export const PAYLOADS: Payloads = {
  plan_created: { steps: [{ step_id: 'step_1', sequence: 1, description: 'Step 1' }], dialect: '000' },
  plan_started: { message: 'Go ahead' },
  plan_completed: { summary: 'Shipped', progress },
  plan_failed: { summary: 'Broke', progress },
  plan_cancelled: { summary: null, progress },
  step_added: { after_step_id: null, status: 'pending' },
  step_started: { result: null, error: null },
  step_completed: { result: 'done', error: null },
  step_failed: { result: null, error: 'boom' },
  step_skipped: { result: 'not needed', error: null },
  step_blocked: {
    blocked_by: [{ agent_id: 'sub', plan_id: 'subplan1', step_id: 'step_1' }],
    depends_on: [{ agent_id: 'sub', plan_id: 'subplan1', step_id: 'step_1' }],
  },
  step_unblocked: {
    received_outputs: ['sub:step_1'],
    outputs: { 'sub:step_1': { passed: true } },
    unblocked_by: { agent_id: 'sub', plan_id: 'subplan1', step_id: 'step_1' },
    unblocked_by_agent: 'sub',
  },
  plan_approval_requested: {
    message: 'Ready?',
    steps: [{ step_id: 'step_1', sequence: 1, description: 'Step 1' }],
  },
  plan_approved: { approved_by: 'alice', agent_id: 'sub' },
  plan_rejected: { rejected_by: 'alice', agent_id: 'sub', reason: 'too risky' },
  plan_modified: { state: 'requested', step_id: 30, reason: 'scope changed', new_description: 'x' },
  todos_updated: { dialect: '001', action: 'create', todos: [] },
  task_created: { task_id: '1', subject: 'T', task: { id: '1' } },
  task_updated: { task_id: '1', subject: 'T', updated_fields: ['status'] },
  task_deleted: { task_id: '1', subject: 'T', reason: 'all_completed' },
  task_unblocked: { task_id: '2', subject: 'U', unblocked_by: '1', reason: 'blocker_completed' },
  mode_changed: { agent_id: 'sub', from: 'normal', to: 'plan', goal: 'Plan it', plan_id: null },
  agent_online: { last_seen_at: 't0' },
  agent_offline: { last_seen_at: 't0', reason: 'node_lost' },
  step_stalled: { last_update_at: 't0', stalled_for_ms: 600_000, stall_after_ms: 600_000 },
};

let seq = 0;

/** An event of `type` from `agent` about `planId` (and `stepId`), with today's payload unless one is given. */
export const typedFixture = <T extends EventType>(
  type: T,
  agent: string,
  planId: string | null,
  stepId: string | null,
  payload: Payloads[T] = PAYLOADS[type],
) => ({
  event_id: `100-${seq++}`,
  event_type: type,
  timestamp: 't1',
  workspace: 'ws',
  source_agent: agent,
  source_plan_id: planId,
  source_plan_title: planId === null ? null : `Plan ${planId}`,
  source_step_id: stepId,
  source_step_description: null,
  source_step_sequence: null,
  payload,
});
