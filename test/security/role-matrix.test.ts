import { isDeepStrictEqual } from 'node:util';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import type { CallAck, ToolName } from '@planhub/shared';
import { CallAckSchema, TOOL_NAMES } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAgent, type SeedOptions, type Seeded } from './support/fixture.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { recordingStore, type RecordingStore, type StateSnapshot } from './support/recording-store.ts';

/**
 * Invariant 6, tool by tool: the owner of some data, another agent, a user and a dashboard each call every tool
 * against the owner's data, first from the owner's workspace ("here"), then from another workspace that knows the
 * same ids and names ("elsewhere"). Every outcome is in the table below; every refusal changes nothing; nobody but
 * the owner (and a user deciding an approval) changes the owner's documents; nothing from the owner's workspace
 * appears in an answer given elsewhere.
 */

type Role = 'owner' | 'other' | 'user' | 'dashboard';
const ROLES: readonly Role[] = ['owner', 'other', 'user', 'dashboard'];
const IDENTITY: Record<Role, { agent: string; role: 'agent' | 'user' | 'dashboard' }> = {
  owner: { agent: 'owner', role: 'agent' },
  other: { agent: 'other', role: 'agent' },
  user: { agent: 'alice', role: 'user' },
  dashboard: { agent: 'wall', role: 'dashboard' },
};

/** `ok` or the error code. */
type Outcome = 'ok' | 'DENIED' | 'NOT_FOUND' | 'PRECONDITION' | 'INVALID';
const CODE: Record<Exclude<Outcome, 'ok'>, string> = {
  DENIED: 'PERMISSION_DENIED',
  NOT_FOUND: 'NOT_FOUND',
  PRECONDITION: 'FAILED_PRECONDITION',
  INVALID: 'INVALID_ARGUMENT',
};
/** Expected outcome per role, in ROLES order: owner, other agent, user, dashboard. */
type PerRole = readonly [Outcome, Outcome, Outcome, Outcome];

interface Row {
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

/** One row per tool; a tool added to the catalog without a row fails the first test below. */
const MATRIX: Partial<Record<ToolName, Row>> = {
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
    // Only one's own subscriptions can be removed; another's is not even found.
    args: (fx) => ({ subscription_id: fx.subscriptionId }),
    here: ['ok', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND'],
    elsewhere: GONE_READ,
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
    args: (fx) => ({ plan_id: fx.plan004, step_index: 0, status: 'completed' }),
    here: OWNER_WRITE,
    elsewhere: GONE_WRITE,
  },
  get_plan: { args: (fx) => ({ plan_id: fx.plan004 }), here: ALL_OK, elsewhere: GONE_READ },
  getWorkspace: { args: () => ({}), here: ALL_OK, elsewhere: ALL_OK },
};

let rec: RecordingStore;
let server: PlanHubServer;
let url: string;

beforeAll(async () => {
  rec = recordingStore(createMemoryStore({ eventRetention: 10_000 }));
  server = createServer(
    { port: 0, logLevel: 'silent', approvalPolicy: 'owner-or-user', limits: { callsPerSecond: 100_000 } },
    { store: rec.store },
  );
  ({ url } = await server.listen());
});
afterAll(async () => server.close());

const outcomeOf = (ack: CallAck): string => (ack.ok ? 'ok' : ack.error.code);
const expected = (o: Outcome): string => (o === 'ok' ? 'ok' : CODE[o]);

/** The owner's documents: those keyed by its agent id or by one of its plans. */
const ownerDocs = (snap: StateSnapshot, fx: Seeded) =>
  Object.fromEntries(
    Object.entries(snap.docs).filter(
      ([key]) => /(^|:)owner$/.test(key) || (fx.planId !== '' && key.includes(fx.planId)) || key.includes(fx.plan004),
    ),
  );

let cellCount = 0;

describe('role × tool matrix (policy owner-or-user)', () => {
  it('has a row for every tool of the catalog', () => {
    const missing = TOOL_NAMES.filter((t) => MATRIX[t] === undefined);
    expect(missing, `add rows to the security matrix for: ${missing.join(', ')}`).toEqual([]);
  });

  describe.concurrent.each(TOOL_NAMES.map((t) => [t]))('%s', (tool) => {
    it.each(ROLES.map((r) => [r]))('as %s, here and from another workspace', async (role) => {
      const row = MATRIX[tool];
      if (!row) throw new Error(`no matrix row for ${tool}`);
      const index = ROLES.indexOf(role);
      const cell = `${tool}-${role}`;
      const [home, away] = [`m-${cell}`, `x-${cell}`];
      const marker = `MARK${Math.random().toString(36).slice(2, 10)}`;
      const identity = IDENTITY[role];
      const owner = await rawClient(url, openAuth(home, 'owner'));
      const clients: RawClient[] = [owner];
      try {
        const fx = await seedAgent(owner, marker, row.seed);
        const caller = role === 'owner' ? owner : await rawClient(url, openAuth(home, identity.agent, identity.role));
        if (caller !== owner) clients.push(caller);
        const stranger = await rawClient(url, openAuth(away, identity.agent, identity.role));
        clients.push(stranger);

        // Here: the owner's workspace.
        const before = await rec.snapshot(home);
        const ack = await caller.call(tool, row.args(fx));
        expect(CallAckSchema.safeParse(ack).success).toBe(true);
        expect(outcomeOf(ack), JSON.stringify(ack).slice(0, 400)).toBe(expected(row.here[index] as Outcome));
        const after = await rec.snapshot(home);
        if (!ack.ok) {
          expect(after).toEqual(before);
          if (ack.error.code === 'PERMISSION_DENIED') expect(ack.error.message).toMatch(/\b(only|read-only)\b/);
        } else if (role !== 'owner' && !(row.userDecides && role === 'user')) {
          expect(isDeepStrictEqual(ownerDocs(after, fx), ownerDocs(before, fx)), `${role} changed owner data`).toBe(
            true,
          );
        }

        // Elsewhere: the same call, ids and names from another workspace.
        const homeBefore = await rec.snapshot(home);
        const awayBefore = await rec.snapshot(away);
        const far = await stranger.call(tool, row.args(fx));
        expect(CallAckSchema.safeParse(far).success).toBe(true);
        expect(outcomeOf(far), JSON.stringify(far).slice(0, 400)).toBe(expected(row.elsewhere[index] as Outcome));
        expect(JSON.stringify(far)).not.toContain(marker);
        expect(await rec.snapshot(home)).toEqual(homeBefore);
        if (!far.ok) expect(await rec.snapshot(away)).toEqual(awayBefore);
        cellCount += 2;
      } finally {
        for (const c of clients) c.close();
      }
    });
  });

  afterAll(() => {
    // 2 outcomes (here, elsewhere) per role per tool, all asserted.
    expect(cellCount).toBe(TOOL_NAMES.length * ROLES.length * 2);
  });
});

describe('approvals follow the configured policy', () => {
  const POLICY_TABLE: Record<'user' | 'owner-or-user' | 'auto', PerRole> = {
    user: ['DENIED', 'DENIED', 'ok', 'DENIED'],
    'owner-or-user': ['ok', 'DENIED', 'ok', 'DENIED'],
    // Auto approves at startPlan: nothing is left to decide, and the others may not decide anyway.
    auto: ['PRECONDITION', 'DENIED', 'PRECONDITION', 'DENIED'],
  };

  it.each(Object.entries(POLICY_TABLE))('policy %s', async (policy, outcomes) => {
    const node = createServer({
      port: 0,
      logLevel: 'silent',
      approvalPolicy: policy as keyof typeof POLICY_TABLE,
      limits: { callsPerSecond: 100_000 },
    });
    const { url: nodeUrl } = await node.listen();
    const clients: RawClient[] = [];
    try {
      for (const [i, role] of ROLES.entries()) {
        const workspace = `p-${policy}-${role}`;
        const owner = await rawClient(nodeUrl, openAuth(workspace, 'owner'));
        clients.push(owner);
        const created = await owner.call('createPlan', { title: 't', steps: ['a'] });
        if (!created.ok) throw new Error(created.error.message);
        const planId = (created.result as { plan_id: string }).plan_id;
        const started = await owner.call('startPlan', { wait: false });
        expect(started.ok && (started.result as { status: string }).status).toBe(
          policy === 'auto' ? 'in_progress' : 'awaiting_approval',
        );
        const { agent, role: wireRole } = IDENTITY[role];
        const decider = role === 'owner' ? owner : await rawClient(nodeUrl, openAuth(workspace, agent, wireRole));
        clients.push(decider);
        const ack = await decider.call('plan_approve', { plan_id: planId });
        expect(outcomeOf(ack), `${role}: ${JSON.stringify(ack)}`).toBe(expected(outcomes[i] as Outcome));
        if (!ack.ok && ack.error.code === 'PERMISSION_DENIED')
          expect(ack.error.message).toMatch(/user|owner|read-only/);
      }
    } finally {
      for (const c of clients) c.close();
      await node.close();
    }
  });
});
