import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { MAX_TITLE } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from './support/fixture.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { recordingStore, type RecordingStore } from './support/recording-store.ts';

/** Small limits, so each can be reached in a few calls; every refusal names the limit and changes nothing. */
const LIMITS = {
  stepsPerPlan: 3,
  plansPerAgent: 2,
  todosPerList: 2,
  tasksPerWorkspace: 2,
  subscriptionsPerAgent: 2,
  outputBytes: 1024,
  outputDepth: 4,
  argsDepth: 12,
  callsPerSecond: 100_000,
};

let rec: RecordingStore;
let server: PlanHubServer;
let url: string;
const clients: RawClient[] = [];

beforeAll(async () => {
  rec = recordingStore(createMemoryStore({ eventRetention: 1000 }));
  server = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: LIMITS }, { store: rec.store });
  ({ url } = await server.listen());
});
afterAll(async () => {
  for (const c of clients) c.close();
  await server.close();
});

const agent = async (workspace: string, name = 'a') => {
  const client = await rawClient(url, openAuth(workspace, name));
  clients.push(client);
  return client;
};

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { d: v };
  return v;
};

/** Calls once, expects a refusal with `code` whose message matches, and no change to the workspace. */
const refused = async (
  client: RawClient,
  workspace: string,
  tool: string,
  args: unknown,
  code: string,
  text: RegExp,
) => {
  const before = await rec.snapshot(workspace);
  const ack: CallAck = await client.call(tool, args);
  expect(ack.ok ? 'ok' : ack.error.code, JSON.stringify(ack).slice(0, 300)).toBe(code);
  if (!ack.ok) expect(ack.error.message).toMatch(text);
  expect(await rec.snapshot(workspace)).toEqual(before);
  return ack;
};

describe('limits answer clear errors and change nothing', () => {
  it('string lengths: fixed by the schemas, refused as INVALID_ARGUMENT with the path', async () => {
    const a = await agent('strings');
    const ack = await refused(
      a,
      'strings',
      'createPlan',
      { title: 'x'.repeat(MAX_TITLE + 1), steps: ['s'] },
      'INVALID_ARGUMENT',
      new RegExp(`^title is too long \\(at most ${MAX_TITLE} characters\\)`),
    );
    expect(JSON.stringify(ack).length).toBeLessThan(2000);
  });

  it('steps per plan, in every dialect that makes or grows plans', async () => {
    const a = await agent('steps');
    await refused(
      a,
      'steps',
      'createPlan',
      { title: 't', steps: ['1', '2', '3', '4'] },
      'RESOURCE_EXHAUSTED',
      /at most 3 steps/,
    );
    const four = [1, 2, 3, 4].map((n) => ({ description: `s${n}` }));
    await refused(a, 'steps', 'create_plan', { title: 't', steps: four }, 'RESOURCE_EXHAUSTED', /at most 3 steps/);
    ok(await a.call('plan_enter', { goal: 'g' }), 'plan_enter');
    const plan = { summary: 's', approach: 'a', steps: [1, 2, 3, 4].map((id) => ({ id, description: `d${id}` })) };
    await refused(a, 'steps', 'plan_exit', { plan }, 'RESOURCE_EXHAUSTED', /at most 3 steps/);
    const b = await agent('steps', 'b');
    ok(await b.call('createPlan', { title: 't', steps: ['1', '2', '3'] }), 'createPlan');
    ok(await b.call('startPlan', {}), 'startPlan');
    await refused(b, 'steps', 'addStep', { description: 'four' }, 'RESOURCE_EXHAUSTED', /limit 3/);
    await refused(
      b,
      'steps',
      'addDependentStep',
      { description: 'four', depends_on: [{ agent_id: 'b', step_id: 'step_1' }] },
      'RESOURCE_EXHAUSTED',
      /limit 3/,
    );
  });

  it('plans per agent', async () => {
    const a = await agent('plans');
    for (const n of [1, 2])
      ok(await a.call('create_plan', { title: `p${n}`, steps: [{ description: 'd' }] }), 'create_plan');
    await refused(
      a,
      'plans',
      'create_plan',
      { title: 'p3', steps: [{ description: 'd' }] },
      'RESOURCE_EXHAUSTED',
      /unfinished plans \(limit 2\)/,
    );
  });

  it('todos per list (001 and 002)', async () => {
    const a = await agent('todos');
    const three = [1, 2, 3].map((n) => ({ content: `c${n}`, activeForm: `doing ${n}`, status: 'pending' }));
    await refused(a, 'todos', 'todo', { action: 'create', todos: three }, 'RESOURCE_EXHAUSTED', /at most 2 items/);
    const items = [1, 2, 3].map((n) => ({ id: `t${n}`, content: `c${n}`, status: 'pending', priority: 'low' }));
    await refused(a, 'todos', 'todo_write', { todos: items }, 'RESOURCE_EXHAUSTED', /at most 2 items/);
  });

  it('tasks per workspace', async () => {
    const a = await agent('tasks');
    for (const n of [1, 2]) ok(await a.call('TaskCreate', { subject: `t${n}`, description: 'd' }), 'TaskCreate');
    await refused(a, 'tasks', 'TaskCreate', { subject: 't3', description: 'd' }, 'RESOURCE_EXHAUSTED', /\(limit 2\)/);
  });

  it('output size and depth, including task metadata merged over many calls', async () => {
    const a = await agent('output');
    ok(await a.call('createPlan', { title: 't', steps: ['1', '2'] }), 'createPlan');
    ok(await a.call('startPlan', {}), 'startPlan');
    await refused(
      a,
      'output',
      'completeStepWithOutput',
      { step_id: 'step_1', output: { blob: 'x'.repeat(2000) } },
      'RESOURCE_EXHAUSTED',
      /output is larger than 1024 bytes/,
    );
    await refused(
      a,
      'output',
      'completeStepWithOutput',
      { step_id: 'step_1', output: nested(6) },
      'RESOURCE_EXHAUSTED',
      /output is nested more than 4 levels/,
    );
    ok(await a.call('completeStepWithOutput', { step_id: 'step_1', output: { files: 3 } }), 'within limits');
    const task = ok<{ task: { id: string } }>(
      await a.call('TaskCreate', { subject: 's', description: 'd' }),
      'TaskCreate',
    );
    ok(await a.call('TaskUpdate', { taskId: task.task.id, metadata: { a: 'x'.repeat(600) } }), 'first half');
    await refused(
      a,
      'output',
      'TaskUpdate',
      { taskId: task.task.id, metadata: { b: 'x'.repeat(600) } },
      'RESOURCE_EXHAUSTED',
      /metadata is larger than 1024 bytes/,
    );
  });

  it('subscriptions per agent', async () => {
    const a = await agent('subs');
    for (const type of ['plan_created', 'step_added'])
      ok(await a.call('subscribeToTasks', { event_types: [type] }), 'subscribeToTasks');
    await refused(a, 'subs', 'subscribeToTasks', { event_types: ['step_failed'] }, 'RESOURCE_EXHAUSTED', /limit 2/);
  });

  it('nesting depth of any call, checked before validation', async () => {
    const a = await agent('depth');
    await refused(
      a,
      'depth',
      'getPlanStatus',
      { plan_id: nested(20) },
      'RESOURCE_EXHAUSTED',
      /arguments is nested more than 12 levels/,
    );
  });
});
