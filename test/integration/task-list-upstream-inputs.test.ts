import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Upstream's Go tools decode arguments into a struct: a missing field or a JSON null is the zero value, never an
 * error. PlanHub accepts every such call. The arguments go out as written (the typed methods take no null).
 */
describe.each(STORE_KINDS)('seed 003 tasks take null and missing fields as Go decodes them (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const start = async (): Promise<PlanHubClient> => {
    h = await startHarness(store);
    return h.client('main');
  };
  const create = (agent: PlanHubClient, args: Record<string, unknown>) => agent.call('TaskCreate', args);
  const update = (agent: PlanHubClient, args: Record<string, unknown>) => agent.call('TaskUpdate', args as never);

  it('creates a task without a description, or with a null one, as an empty description', async () => {
    const agent = await start();
    expect((await create(agent, { subject: 'Third' })).result).toBe('Task #1 created successfully: Third');
    expect((await create(agent, { subject: 'Fourth', description: null })).task).toMatchObject({
      subject: 'Fourth',
      description: '',
    });
    expect((await agent.TaskGet({ taskId: '1' })).result).toBe('Task #1: Third\nStatus: pending\nDescription: \n');
  });

  it('creates a task with a null activeForm and null metadata as if they were not sent', async () => {
    const agent = await start();
    const { task } = await create(agent, { subject: 'S', description: 'D', activeForm: null, metadata: null });
    expect(task).toMatchObject({ id: '1', subject: 'S', description: 'D', status: 'pending' });
    expect(task).not.toHaveProperty('activeForm');
    expect(task).not.toHaveProperty('metadata');
  });

  it('creates a task with a missing or null subject as an empty one, as upstream checks no emptiness', async () => {
    const agent = await start();
    expect((await create(agent, {})).result).toBe('Task #1 created successfully: ');
    expect((await create(agent, { subject: null, description: 'd' })).task).toMatchObject({ id: '2', subject: '' });
    expect((await agent.TaskList({})).tasks.map((t) => t.subject)).toEqual(['', '']);
  });

  it('reads every null TaskUpdate field as unchanged, as an empty string is', async () => {
    const agent = await start();
    await agent.TaskCreate({ subject: 'S', description: 'D', activeForm: 'Doing', metadata: { k: 1 } });
    await agent.TaskCreate({ subject: 'Other', description: '' });
    await agent.TaskUpdate({ taskId: '1', owner: 'alice', addBlocks: ['2'] });
    const before = (await agent.TaskGet({ taskId: '1' })).task;
    const nulls = ['subject', 'description', 'activeForm', 'status', 'addBlocks', 'addBlockedBy', 'owner', 'metadata'];
    const out = await update(agent, { taskId: '1', ...Object.fromEntries(nulls.map((f) => [f, null])) });
    expect(out).toMatchObject({ result: 'Updated task #1 (no changes)', unblocked: [], cleaned_up: false });
    expect((await agent.TaskGet({ taskId: '1' })).task).toEqual(before);
  });

  it('applies the fields that are set beside null ones', async () => {
    const agent = await start();
    await agent.TaskCreate({ subject: 'S', description: 'D' });
    expect(
      (await update(agent, { taskId: '1', subject: null, addBlocks: null, status: 'in_progress', owner: 'bob' }))
        .result,
    ).toBe('Updated task #1 status, owner');
    expect((await agent.TaskGet({ taskId: '1' })).task).toMatchObject({ subject: 'S', status: 'in_progress' });
  });

  it('keeps a null inside metadata as the deletion of that key', async () => {
    const agent = await start();
    await agent.TaskCreate({ subject: 'S', description: 'D', metadata: { a: 1, b: 2 } });
    await update(agent, { taskId: '1', metadata: { a: null, c: 3 } });
    expect((await agent.TaskGet({ taskId: '1' })).task.metadata).toEqual({ b: 2, c: 3 });
  });

  it('still refuses a null or malformed taskId in upstream words', async () => {
    const agent = await start();
    await agent.TaskCreate({ subject: 'S', description: 'D' });
    expect((await refusal(update(agent, { taskId: null, subject: 'x' }))).message).toMatch(
      /^TaskUpdate validate task ID failed, err: invalid format: /,
    );
    expect((await refusal(update(agent, { taskId: '1.5', subject: 'x' }))).message).toMatch(
      /^TaskUpdate validate task ID failed, err: invalid format: 1\.5/,
    );
  });

  it('answers the same through execute(), as an LLM host calls it', async () => {
    const agent = await start();
    expect(await agent.execute('TaskCreate', { subject: 'Third' })).toMatchObject({
      result: 'Task #1 created successfully: Third',
    });
    expect(await agent.execute('TaskUpdate', { taskId: '1', subject: null, status: 'completed' })).toMatchObject({
      result: 'Updated task #1 status',
    });
  });
});
