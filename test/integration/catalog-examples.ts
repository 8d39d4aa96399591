import type { ToolArgs } from '@planhub/shared';

/**
 * Per tool: calls taken from its seed document (or, where the seed shows none, the call its seed describes), and
 * malformed calls its schema must refuse. catalog.test.ts fails for any tool listTools serves that has no entry here,
 * so a new tool cannot ship without examples.
 */
export interface ToolExamples {
  valid: Record<string, unknown>[];
  invalid: unknown[];
  /** Calls the zod schema lets through to the core, which refuses them with the seed's own wording. */
  coreChecked?: unknown[];
}

const SEED_000_STEPS = [
  'Review current auth implementation',
  'Extract token validation to separate module',
  'Add unit tests for new module',
  'Update imports in dependent files',
];

/** Seed 004's two example plans (indexed-plans.test.ts runs them end to end). */
export const SEED_004_DEPLOY = {
  title: 'Deploy to production',
  steps: [
    { description: 'Run test suite' },
    { description: 'Build Docker image' },
    { description: 'Push to container registry' },
    { description: 'Deploy to cluster' },
    { description: 'Run smoke tests' },
    { description: 'Update documentation' },
  ],
} satisfies ToolArgs<'create_plan'>;

export const SEED_004_REVIEW = {
  title: 'Code review checklist',
  steps: [
    { description: 'Read the PR description', status: 'completed', notes: 'Looks good' },
    { description: 'Review code changes', status: 'in_progress' },
    { description: 'Run tests locally', status: 'pending' },
    { description: 'Leave review comments', status: 'pending' },
  ],
} satisfies ToolArgs<'create_plan'>;

const SEED_001_TODOS = [
  { content: 'Research auth requirements', activeForm: 'Researching auth requirements', status: 'completed' },
  { content: 'Design auth flow', activeForm: 'Designing auth flow', status: 'in_progress' },
  { content: 'Implement auth module', activeForm: 'Implementing auth module', status: 'pending' },
  { content: 'Write auth tests', activeForm: 'Writing auth tests', status: 'pending' },
  { content: 'Document auth usage', activeForm: 'Documenting auth usage', status: 'pending' },
];

export const SEED_002_PLAN = {
  summary: 'Add JWT authentication to the API',
  approach: 'Token-validating middleware on every protected route',
  alternatives_considered: ['Session cookies'],
  steps: [
    { id: 1, description: 'Write the middleware', files: ['src/auth.ts'], depends_on: [], verification: 'npm test' },
    { id: 2, description: 'Apply it to routes', files: ['src/routes.ts'], depends_on: [1], verification: 'npm test' },
  ],
  risks: ['Clock skew'],
  files_to_create: ['src/auth.ts'],
  files_to_modify: ['src/routes.ts'],
  tests_to_write: ['rejects expired tokens'],
  estimated_complexity: 'medium',
};

const TS = '2025-01-01T00:00:00.000Z';

export const EXAMPLES: Record<string, ToolExamples> = {
  // 000 core
  createPlan: {
    valid: [{ title: 'Refactor auth module', steps: SEED_000_STEPS }],
    invalid: [{ title: 'Refactor auth module' }, { title: 'T', steps: [] }, { title: 'T', steps: [1, 2] }],
  },
  startPlan: {
    valid: [{ message: 'Ready to proceed?' }, {}],
    invalid: [{ message: 42 }, { wait: 'no' }],
  },
  setStepStatus: {
    valid: [
      { step_id: 'step_1', status: 'completed' },
      { step_id: 'step_2', status: 'in_progress' },
      { step_id: 'step_1', status: 'completed', result: 'Found 3 auth-related files: auth.py, tokens.py, session.py' },
      { step_id: 'step_2', status: 'failed', error: 'Could not find token validation logic in expected location' },
      { step_id: 'step_3', status: 'skipped', result: 'Tests already exist, no need to add more' },
      // Upstream accepts both and changes nothing.
      { step_id: 'step_1', status: 'pending' },
      { step_id: 'step_1', status: 'blocked' },
    ],
    invalid: [{ step_id: 'step_1' }, { step_id: 'step_1', status: 'done' }, { status: 'completed' }],
  },
  getPlanStatus: { valid: [{}, { agent_id: 'implementer' }], invalid: [{ plan_id: 5 }] },
  completePlan: {
    valid: [{ status: 'completed', summary: 'Refactoring done' }, { status: 'cancelled' }],
    invalid: [{}, { status: 'done' }],
  },
  addStep: {
    valid: [{ description: 'Fix circular import', after_step_id: 'step_2' }],
    invalid: [{ after_step_id: 'step_2' }, { description: '' }],
  },
  listTools: { valid: [{}, { dialect: '002' }], invalid: [{ dialect: '005' }] },
  // 000 cross-agent
  subscribeToTasks: {
    valid: [{ event_types: ['plan_created', 'step_completed'] }, { agent_id: '*', event_types: ['step_unblocked'] }],
    invalid: [{}, { event_types: [] }, { event_types: ['step_exploded'] }],
  },
  addDependentStep: {
    valid: [
      {
        description: 'Review implementation results',
        depends_on: [{ agent_id: 'implementer', step_id: 'final_step' }],
      },
      { step_id: 'step_2', depends_on: [{ agent_id: 'implementer', step_id: 'final_step' }] },
    ],
    invalid: [
      { description: 'Review' },
      { description: 'Review', depends_on: [] },
      { description: 'Review', depends_on: [{ agent_id: 'implementer' }] },
    ],
  },
  completeStepWithOutput: {
    valid: [
      {
        step_id: 'final_step',
        output: { passed: true, results: ['file1.py created', 'tests pass'], errors: [] },
        result: 'Implementation completed successfully',
      },
    ],
    invalid: [{ step_id: 'final_step' }, { step_id: 'final_step', output: 'done' }],
  },
  getBlockedSteps: { valid: [{}, { plan_id: 'abc12345' }], invalid: [{ plan_id: ['x'] }] },
  getTaskEvents: {
    // Any string is an after_event, as upstream takes any: one this log never wrote reads from its oldest event.
    valid: [
      {},
      { agent_id: 'implementer', event_types: ['step_completed'], limit: 20 },
      { after_event: '3f1c1b9e-8a1e-4d7b-9d5c-1a2b3c4d5e6f' },
    ],
    // A timeout that is not a number reads as 0, as upstream reads it: zod takes { timeout: 'soon' }.
    invalid: [{ limit: -1 }, { limit: 501 }, { limit: 'twenty' }, { after_event: 7 }],
  },
  listSubscriptions: { valid: [{}], invalid: [] },
  unsubscribe: { valid: [{ subscription_id: 'sub_1' }, { all: true }], invalid: [{ all: 'yes' }] },
  // 001
  todo: {
    valid: [
      { action: 'create', todos: SEED_001_TODOS.map((t) => ({ ...t, status: 'pending' })) },
      { action: 'update', todos: SEED_001_TODOS },
      { action: 'list' },
    ],
    invalid: [{}, { action: 5 }],
    // Seed 001's own wording: "Unknown action: X. Valid actions: …", "Todo 0 missing required fields (…)".
    coreChecked: [{ action: 'delete' }, { action: 'create', todos: [{ content: 'Run tests', status: 'pending' }] }],
  },
  todoReminder: { valid: [{}, { quiet_ms: 0 }], invalid: [{ quiet_ms: -1 }] },
  // 002
  plan_enter: {
    valid: [{ goal: 'Add JWT authentication' }, { goal: 'Refactor storage', scope: 'src/store' }],
    invalid: [{}, { goal: '' }, { goal: 'x', scope: 3 }],
  },
  plan_exit: {
    valid: [
      { plan: SEED_002_PLAN },
      { plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] } },
      // Upstream reads null lists as empty ones, and takes any number as a step id.
      {
        plan: {
          summary: 's',
          approach: 'a',
          steps: [{ id: 1.5, description: 'd', files: null, depends_on: null, verification: null }],
          risks: null,
          alternatives_considered: null,
        },
      },
    ],
    invalid: [
      {},
      { plan: { summary: 's', approach: 'a', steps: [] } },
      { plan: { summary: 's', approach: 'a', steps: [{ id: '1', description: 'd' }] } },
      { plan: { approach: 'a', steps: [{ id: 1, description: 'd' }] } },
    ],
  },
  plan_status: { valid: [{}], invalid: [{ agent_id: 7 }] },
  plan_approve: { valid: [{}, { plan_id: 'abc12345' }, { modification: true }], invalid: [{ modification: 'yes' }] },
  plan_reject: { valid: [{}, { reason: 'Split it in two' }], invalid: [{ reason: 5 }] },
  plan_step_complete: {
    // Upstream requires only a number, so 1.5 and -1 are step ids too.
    valid: [
      { step_id: 1, verification_result: '12 tests passed' },
      { step_id: 1.5, verification_result: 'ok' },
      { step_id: -1, verification_result: 'ok' },
    ],
    invalid: [{ step_id: 1 }, { step_id: 'step_1', verification_result: 'ok' }],
  },
  plan_complete: {
    valid: [{ summary: 'JWT auth shipped' }, { summary: 'Done', deviations: ['Skipped docs: moved to a follow-up'] }],
    invalid: [{}, { summary: 'x', deviations: 'none' }],
  },
  plan_modify: {
    valid: [
      {
        step_id: 2,
        reason: 'Routes live in two files',
        new_description: 'Apply it to routes.ts and admin.ts',
        new_files: ['src/routes.ts', 'src/admin.ts'],
        new_verification: 'npm test routes',
      },
    ],
    invalid: [
      { step_id: 2, reason: 'r' },
      { step_id: 2, reason: 'r', new_description: 'd', new_files: 'a.ts' },
    ],
  },
  plan_manage: {
    valid: [
      { action: 'enter', goal: 'Add JWT authentication', scope: 'src/' },
      { action: 'exit', plan: SEED_002_PLAN },
      { action: 'approve' },
      { action: 'reject', reason: 'Split it in two' },
      { action: 'complete', summary: 'Done', deviations: ['Skipped docs'] },
      { action: 'modify', step_id: 2, reason: 'r', new_description: 'd', new_files: ['a.ts'] },
    ],
    invalid: [{}, { action: 'frobnicate' }, { action: 'enter', goal: 5 }, { action: 'exit', plan: 'the plan' }],
  },
  todo_read: { valid: [{}], invalid: [{ agent_id: false }] },
  todo_write: {
    valid: [
      {
        todos: [
          { id: '1', content: 'Research', status: 'completed', priority: 'high', created_at: TS, updated_at: TS },
          { id: '2', content: 'Design', status: 'in_progress', priority: 'medium', created_at: TS, updated_at: TS },
          { id: '3', content: 'Test', status: 'pending', priority: 'low', created_at: TS, updated_at: TS },
        ],
      },
      { todos: [] },
    ],
    invalid: [
      {},
      { todos: [{ id: '1', content: 'x', status: 'pending' }] },
      { todos: [{ id: '1', content: 'x', status: 'blocked', priority: 'low' }] },
      { todos: [{ id: '1', content: 'x', status: 'pending', priority: 'urgent' }] },
    ],
  },
  // 003
  TaskCreate: {
    valid: [
      { subject: 'Analyze requirements', description: 'List what auth must do', activeForm: 'Analyzing requirements' },
      { subject: 'Write code', description: 'Implement it', metadata: { area: 'auth' } },
      // Upstream does not check emptiness, and Go reads a missing field as "".
      { subject: '', description: 'd' },
      { subject: 'No description' },
      { description: 'No subject' },
    ],
    invalid: [
      { subject: 1, description: 'd' },
      { subject: 's', description: ['d'] },
      { subject: 's', metadata: 'm' },
    ],
  },
  TaskGet: { valid: [{ taskId: '1' }], invalid: [{}, { taskId: 1 }], coreChecked: [{ taskId: 'one' }] },
  TaskUpdate: {
    valid: [
      { taskId: '2', addBlockedBy: ['1'] },
      { taskId: '1', status: 'in_progress' },
      { taskId: '1', status: 'completed' },
      { taskId: '3', status: 'deleted' },
      { taskId: '1', owner: 'agent-a', metadata: { area: null } },
    ],
    invalid: [{}, { taskId: '1', addBlocks: '2' }, { taskId: 1 }],
    coreChecked: [{ taskId: '1', status: 'blocked' }],
  },
  TaskList: { valid: [{}], invalid: [] },
  // 004
  create_plan: {
    // Upstream's title and step description are plain strings: empty ones are accepted.
    valid: [SEED_004_DEPLOY, SEED_004_REVIEW, { title: '', steps: [{ description: '' }] }],
    invalid: [
      { title: 'T' },
      { title: 7, steps: [] },
      { title: 'T', steps: [{ status: 'pending' }] },
      { title: 'T', steps: [{ description: 'd', status: 'done' }] },
    ],
  },
  update_plan: {
    valid: [
      { plan_id: 'abc12345', step_index: 0, status: 'completed' },
      { plan_id: 'abc12345', step_index: 1, status: 'in_progress', notes: 'Docker build started at 14:30' },
      { plan_id: 'abc12345', step_index: 3, status: 'skipped', notes: 'Not needed for this release' },
    ],
    invalid: [{ plan_id: 'abc12345' }, { step_index: 0 }, { plan_id: 'abc12345', step_index: 'first' }],
  },
  get_plan: { valid: [{ plan_id: 'abc12345' }, {}], invalid: [{ plan_id: 12345678 }] },
  getWorkspace: { valid: [{}, { agent_id: 'main' }], invalid: [{ plans_per_agent: 0 }] },
  listWorkspaces: { valid: [{}], invalid: [] },
};
