import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** Each kind of stored document, a value of the wrong shape, and a call that reads it. */
const KINDS: { key: string; value: unknown; call: (agent: PlanHubClient) => Promise<unknown> }[] = [
  { key: 'agent:a', value: { agent_id: 'a', plans: 'none' }, call: (a) => a.getWorkspace({ agent_id: 'a' }) },
  { key: 'task:1', value: { id: 1, subject: 'x' }, call: (a) => a.TaskGet({ taskId: '1' }) },
  { key: 'tasks', value: { high_water: 'three', tasks: {} }, call: (a) => a.TaskList({}) },
  { key: 'todo001:a', value: { agent_id: 'a', todos: {} }, call: (a) => a.todo({ action: 'list' }) },
  { key: 'todo002:a', value: { todos: [{ id: 1 }] }, call: (a) => a.todo_read({}) },
  { key: 'planMode:a', value: { goal: 7 }, call: (a) => a.plan_enter({ goal: 'Explore' }) },
  { key: 'subs:a', value: { subscriptions: 'all' }, call: (a) => a.listSubscriptions({}) },
  { key: 'plan:p', value: { plan_id: 'p', steps: 'none' }, call: (a) => a.getPlanStatus({ plan_id: 'p' }) },
  { key: 'plan:q', value: { plan_id: 'q', step_ids: 'none' }, call: (a) => a.getPlanStatus({ plan_id: 'q' }) },
  { key: 'agents', value: { agents: 'a' }, call: (a) => a.getWorkspace({}) },
  { key: 'deps', value: { 'p:step_1': 'q:step_1' }, call: (a) => a.listSubscriptions({}) },
];

describe.each(STORE_KINDS)('a corrupt stored document of each kind (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it.each(KINDS)('answers INTERNAL naming $key', async ({ key, value, call }) => {
    h = await startHarness(kind);
    const agent = await h.client('a');
    const outcome = await h.server.services.store.commit('ws', { reads: [], writes: [{ key, value }], events: [] });
    expect(outcome.ok).toBe(true);
    await expect(call(agent)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`The stored document ${key} is corrupt`) as string,
    });
  });
});
