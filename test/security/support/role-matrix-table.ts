import type { CallAck, ToolName } from '@planhub/shared';
import type { SeedOptions, Seeded } from './fixture.ts';

/**
 * The expectations of the security matrix (role-matrix.test.ts) and of the approval policies
 * (approval-policy.test.ts): who calls, and what each role may do with each tool.
 */

export type Role = 'owner' | 'other' | 'user' | 'dashboard';
export const ROLES: readonly Role[] = ['owner', 'other', 'user', 'dashboard'];
export const IDENTITY: Record<Role, { agent: string; role: 'agent' | 'user' | 'dashboard' }> = {
  owner: { agent: 'owner', role: 'agent' },
  other: { agent: 'other', role: 'agent' },
  user: { agent: 'alice', role: 'user' },
  dashboard: { agent: 'wall', role: 'dashboard' },
};

/** `ok` or the error code. */
export type Outcome = 'ok' | 'DENIED' | 'NOT_FOUND' | 'PRECONDITION' | 'INVALID';
const CODE: Record<Exclude<Outcome, 'ok'>, string> = {
  DENIED: 'PERMISSION_DENIED',
  NOT_FOUND: 'NOT_FOUND',
  PRECONDITION: 'FAILED_PRECONDITION',
  INVALID: 'INVALID_ARGUMENT',
};
/** Expected outcome per role, in ROLES order: owner, other agent, user, dashboard. */
export type PerRole = readonly [Outcome, Outcome, Outcome, Outcome];

export interface Row {
  /** The owner's state before the call (default: a started 000 plan). */
  seed?: SeedOptions;
  args: (fx: Seeded) => Record<string, unknown>;
  here: PerRole;
  elsewhere: PerRole;
  /** The user's successful call is meant to change the owner's plan (deciding an approval). */
  userDecides?: boolean;
}

const ALL_OK: PerRole = ['ok', 'ok', 'ok', 'ok'];
/** Acting on one's own data: everyone may, dashboards are read-only. */
const OWN_WRITE: PerRole = ['ok', 'ok', 'ok', 'DENIED'];
/** Writing the owner's plan by id: the owner only. */
const OWNER_WRITE: PerRole = ['ok', 'DENIED', 'DENIED', 'DENIED'];
/** The owner's ids do not exist in another workspace; dashboards are refused before any lookup. */
const GONE_WRITE: PerRole = ['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'DENIED'];
const GONE_READ: PerRole = ['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND'];
const EXECUTING: SeedOptions = { planMode: 'executing' };

const step1 = (fx: Seeded) => ({ plan_id: fx.planId, step_id: 'step_1' });

/** One row per tool; a tool added to the catalog without a row fails role-matrix.test.ts's first test. */
export const MATRIX: Partial<Record<ToolName, Row>> = {
  createPlan: {
    args: () => ({ title: 'mine', steps: ['a'] }),
    // The owner already has a started plan; the others create their own.
    here: ['PRECONDITION', 'ok', 'ok', 'DENIED'],
    elsewhere: OWN_WRITE,
  },
  startPlan: {
    seed: { plan: 'pending' },
    args: (fx) => ({ plan_id: fx.planId, wait: false }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  setStepStatus: {
    args: (fx) => ({ ...step1(fx), status: 'completed', result: 'done' }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  getPlanStatus: { args: (fx) => ({ plan_id: fx.planId }), here: ALL_OK, elsewhere: GONE_READ },
  completePlan: {
    args: (fx) => ({ plan_id: fx.planId, status: 'cancelled' }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  addStep: {
    args: (fx) => ({ plan_id: fx.planId, description: 'one more' }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  listTools: { args: () => ({}), here: ALL_OK, elsewhere: ALL_OK },
  subscribeToTasks: {
    args: () => ({ agent_id: 'owner', event_types: ['step_completed'] }),
    here: ALL_OK,
    elsewhere: ALL_OK,
  },
  addDependentStep: {
    args: (fx) => ({
      plan_id: fx.planId,
      description: 'wait for step 2',
      depends_on: [{ agent_id: 'owner', step_id: 'step_2', plan_id: fx.planId }],
    }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  completeStepWithOutput: {
    args: (fx) => ({ ...step1(fx), output: { files: 3 } }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  getBlockedSteps: { args: (fx) => ({ plan_id: fx.planId }), here: ALL_OK, elsewhere: GONE_READ },
  getTaskEvents: { args: () => ({ limit: 50 }), here: ALL_OK, elsewhere: ALL_OK },
  listSubscriptions: { args: () => ({}), here: ALL_OK, elsewhere: ALL_OK },
  unsubscribe: {
    // Only one's own subscriptions can be removed; another's is not even found: upstream's answer, success: false
    // (the matrix checks that the owner's data did not change).
    args: (fx) => ({ subscription_id: fx.subscriptionId }),
    here: ALL_OK,
    elsewhere: ALL_OK,
  },
  todo: {
    args: () => ({ action: 'create', todos: [{ content: 'c', activeForm: 'doing c', status: 'pending' }] }),
    here: OWN_WRITE,
    elsewhere: OWN_WRITE,
  },
  todoReminder: { args: () => ({ agent_id: 'owner', quiet_ms: 0 }), here: ALL_OK, elsewhere: ALL_OK },
  plan_enter: { args: () => ({ goal: 'plan something' }), here: OWN_WRITE, elsewhere: OWN_WRITE },
  plan_exit: {
    seed: { planMode: 'planning' },
    args: () => ({ plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] } }),
    // Only the owner is in plan mode; the others have nothing to present.
    here: ['ok', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
    elsewhere: ['PRECONDITION', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
  },
  plan_status: { args: () => ({ agent_id: 'owner' }), here: ALL_OK, elsewhere: ALL_OK },
  plan_approve: {
    seed: { plan: 'awaiting' },
    args: (fx) => ({ plan_id: fx.planId }),
    // Policy owner-or-user: the owner relays its user's answer, or a user decides.
    here: ['ok', 'DENIED', 'ok', 'DENIED'],
    elsewhere: GONE_WRITE,
    userDecides: true,
  },
  plan_reject: {
    seed: { plan: 'awaiting' },
    args: (fx) => ({ plan_id: fx.planId, reason: 'no' }),
    here: ['ok', 'DENIED', 'ok', 'DENIED'],
    elsewhere: GONE_WRITE,
    userDecides: true,
  },
  // Upstream's plan_manage(action): each action is its seed tool's call with that tool's checks; approving is the one
  // that reaches another agent's plan.
  plan_manage: {
    seed: { plan: 'awaiting' },
    args: (fx) => ({ action: 'approve', plan_id: fx.planId }),
    here: ['ok', 'DENIED', 'ok', 'DENIED'],
    elsewhere: GONE_WRITE,
    userDecides: true,
  },
  plan_step_complete: {
    seed: EXECUTING,
    args: () => ({ step_id: 1, verification_result: 'tests pass' }),
    // These act on the caller's own plan-mode plan: the others have none.
    here: ['ok', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
    elsewhere: ['PRECONDITION', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
  },
  plan_complete: {
    seed: EXECUTING,
    args: () => ({ summary: 'finished', deviations: ['steps 1 and 2 were not needed'] }),
    here: ['ok', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
    elsewhere: ['PRECONDITION', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
  },
  plan_modify: {
    seed: EXECUTING,
    args: () => ({ step_id: 2, reason: 'needs more', new_description: 'second, better' }),
    here: ['ok', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
    elsewhere: ['PRECONDITION', 'PRECONDITION', 'PRECONDITION', 'DENIED'],
  },
  todo_read: { args: () => ({ agent_id: 'owner' }), here: ALL_OK, elsewhere: ALL_OK },
  todo_write: {
    args: () => ({ todos: [{ id: 'x', content: 'mine', status: 'pending', priority: 'low' }] }),
    here: OWN_WRITE,
    elsewhere: OWN_WRITE,
  },
  TaskCreate: { args: () => ({ subject: 's', description: 'd' }), here: OWN_WRITE, elsewhere: OWN_WRITE },
  TaskGet: { args: (fx) => ({ taskId: fx.taskIds[0] }), here: ALL_OK, elsewhere: GONE_READ },
  TaskUpdate: {
    // Tasks are shared by the workspace: any agent or user may update them.
    args: (fx) => ({ taskId: fx.taskIds[0], status: 'in_progress', owner: 'other' }),
    here: OWN_WRITE,
    elsewhere: GONE_WRITE,
  },
  TaskList: { args: () => ({}), here: ALL_OK, elsewhere: ALL_OK },
  create_plan: { args: () => ({ title: 't', steps: [{ description: 'd' }] }), here: OWN_WRITE, elsewhere: OWN_WRITE },
  update_plan: {
    args: (fx) => ({ plan_id: fx.indexedPlanId, step_index: 0, status: 'completed' }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  get_plan: { args: (fx) => ({ plan_id: fx.indexedPlanId }), here: ALL_OK, elsewhere: GONE_READ },
  getWorkspace: { args: () => ({}), here: ALL_OK, elsewhere: ALL_OK },
  listWorkspaces: {
    args: () => ({}),
    here: ['DENIED', 'DENIED', 'ok', 'ok'],
    elsewhere: ['DENIED', 'DENIED', 'ok', 'ok'],
  },
};

export const outcomeOf = (ack: CallAck): string => (ack.ok ? 'ok' : ack.error.code);
export const expected = (o: Outcome): string => (o === 'ok' ? 'ok' : CODE[o]);
