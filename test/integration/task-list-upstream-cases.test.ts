import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** Upstream's own TaskGet/TaskUpdate test cases, asserted on PlanHub's wire answers and through execute(). */
describe.each(STORE_KINDS)("seed 003 tasks answer upstream's own test cases (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const withTasks = async (...subjects: string[]): Promise<PlanHubClient> => {
    h = await startHarness(store);
    const agent = await h.client('main');
    for (const subject of subjects) await agent.TaskCreate({ subject, description: `${subject} description` });
    return agent;
  };
  const edgesOf = async (agent: PlanHubClient, taskId: string) => {
    const { task } = await agent.TaskGet({ taskId });
    return { blocks: task.blocks, blockedBy: task.blockedBy };
  };

  it('names an unknown task in upstream words first, for TaskGet and TaskUpdate', async () => {
    const agent = await withTasks('Task 1');
    expect(await refusal(agent.TaskGet({ taskId: '999' }))).toEqual({
      code: 'NOT_FOUND',
      message: 'TaskGet get Task #999 failed, err: Task #999 not found. Existing tasks: #1.',
    });
    expect(await refusal(agent.TaskUpdate({ taskId: '999', subject: 'x' }))).toEqual({
      code: 'NOT_FOUND',
      message: 'TaskUpdate read Task #999 failed, err: Task #999 not found. Existing tasks: #1.',
    });
    expect(await agent.execute('TaskGet', { taskId: '999' })).toMatch(/^TaskGet get Task #999 failed, err: /);
    expect(await agent.execute('TaskUpdate', { taskId: '999', status: 'in_progress' })).toMatch(
      /^TaskUpdate read Task #999 failed, err: /,
    );
  });

  it('creates a task with an empty or blank subject, as upstream does not check emptiness', async () => {
    const agent = await withTasks();
    expect(await agent.execute('TaskCreate', { subject: '', description: 'd' })).toMatchObject({
      result: 'Task #1 created successfully: ',
    });
    expect((await agent.TaskCreate({ subject: '   ', description: 'd' })).task.subject).toBe('   ');
    expect((await agent.TaskList({})).tasks.map((t) => t.id)).toEqual(['1', '2']);
  });

  it('refuses a missing taskId as upstream refuses the empty id it reads it as', async () => {
    const agent = await withTasks('Task 1');
    expect(await agent.execute('TaskGet', {})).toMatch(/^TaskGet validate task ID failed, err: invalid format: /);
    expect(await agent.execute('TaskUpdate', { status: 'completed' })).toMatch(
      /^TaskUpdate validate task ID failed, err: invalid format: /,
    );
  });

  it('answers "Updated task #1 subject, description" and keeps both', async () => {
    const agent = await withTasks('Task 1');
    expect(await agent.execute('TaskUpdate', { taskId: '1', subject: 'New', description: 'New description' })).toEqual(
      expect.objectContaining({ result: 'Updated task #1 subject, description' }),
    );
    expect((await agent.TaskGet({ taskId: '1' })).task).toMatchObject({
      subject: 'New',
      description: 'New description',
    });
  });

  it('de-duplicates addBlocks ["2","4","4"] to ["2","4"] and addBlockedBy ["3","5","5"] to ["3","5"]', async () => {
    const agent = await withTasks('1', '2', '3', '4', '5');
    await agent.TaskUpdate({ taskId: '1', addBlocks: ['2', '4', '4'] });
    expect(await edgesOf(agent, '1')).toEqual({ blocks: ['2', '4'], blockedBy: [] });
    expect(await edgesOf(agent, '4')).toEqual({ blocks: [], blockedBy: ['1'] });
    await agent.execute('TaskUpdate', { taskId: '1', addBlockedBy: ['3', '5', '5'] });
    expect(await edgesOf(agent, '1')).toEqual({ blocks: ['2', '4'], blockedBy: ['3', '5'] });
  });

  it('refuses a missing edge target and a malformed id in upstream words, writing nothing', async () => {
    const agent = await withTasks('Task 1', 'Task 2');
    const before = (await agent.TaskList({})).tasks;
    expect((await refusal(agent.TaskUpdate({ taskId: '1', addBlocks: ['999'] }))).message).toMatch(
      /^TaskUpdate update Task #1 blocks failed, err: failed to read task #999 for updating blockedBy: /,
    );
    expect(await refusal(agent.TaskUpdate({ taskId: '1', addBlockedBy: ['2', '999'] }))).toEqual({
      code: 'NOT_FOUND',
      message:
        'TaskUpdate update Task #1 blockedBy failed, err: failed to read task #999 for updating blocks: ' +
        'Task #999 not found. Existing tasks: #1, #2.',
    });
    expect(await agent.execute('TaskUpdate', { taskId: '1', addBlockedBy: ['999'] })).toContain(
      'update Task #1 blockedBy failed',
    );
    expect((await refusal(agent.TaskUpdate({ taskId: '1', addBlocks: ['x'] }))).message).toBe(
      'TaskUpdate validate blocked task ID failed, err: invalid format: x',
    );
    expect(await agent.execute('TaskUpdate', { taskId: '1', addBlockedBy: ['1.5'] })).toBe(
      'TaskUpdate validate blocking task ID failed, err: invalid format: 1.5',
    );
    expect((await agent.TaskList({})).tasks).toEqual(before);
  });

  it('refuses every cycle of 1 → 2 → 3 with the blocks or blockedBy wording, leaving the chain', async () => {
    const agent = await withTasks('Task 1', 'Task 2', 'Task 3');
    const cyclic = (tool: 'blocks' | 'blockedBy', added: string, of: string) => ({
      code: 'FAILED_PRECONDITION',
      message: `TaskUpdate adding Task #${added} to ${tool} of Task #${of} would create a cyclic dependency`,
    });
    expect(await refusal(agent.TaskUpdate({ taskId: '1', addBlocks: ['1'] }))).toEqual(cyclic('blocks', '1', '1'));
    expect(await refusal(agent.TaskUpdate({ taskId: '1', addBlockedBy: ['1'] }))).toEqual(
      cyclic('blockedBy', '1', '1'),
    );
    await agent.TaskUpdate({ taskId: '1', addBlocks: ['2'] });
    expect(await refusal(agent.TaskUpdate({ taskId: '2', addBlocks: ['1'] }))).toEqual(cyclic('blocks', '1', '2'));
    expect(await refusal(agent.TaskUpdate({ taskId: '1', addBlockedBy: ['2'] }))).toEqual(
      cyclic('blockedBy', '2', '1'),
    );
    await agent.TaskUpdate({ taskId: '2', addBlocks: ['3'] });
    expect(await refusal(agent.TaskUpdate({ taskId: '3', addBlocks: ['1'] }))).toEqual(cyclic('blocks', '1', '3'));
    expect(await refusal(agent.TaskUpdate({ taskId: '1', addBlockedBy: ['3'] }))).toEqual(
      cyclic('blockedBy', '3', '1'),
    );
    expect(await agent.execute('TaskUpdate', { taskId: '1', addBlockedBy: ['3'] })).toBe(
      cyclic('blockedBy', '3', '1').message,
    );
    expect(await edgesOf(agent, '1')).toEqual({ blocks: ['2'], blockedBy: [] });
    expect(await edgesOf(agent, '2')).toEqual({ blocks: ['3'], blockedBy: ['1'] });
    expect(await edgesOf(agent, '3')).toEqual({ blocks: [], blockedBy: ['2'] });
  });

  it('refuses status "unknown" as "invalid task status", and lists ids in numeric order', async () => {
    const agent = await withTasks(...Array.from({ length: 10 }, (_, i) => `Task ${i + 1}`));
    expect((await refusal(agent.TaskUpdate({ taskId: '1', status: 'unknown' }))).message).toMatch(
      /^TaskUpdate invalid task status: unknown\. /,
    );
    expect(await agent.execute('TaskUpdate', { taskId: '1', status: 'unknown' })).toContain('invalid task status');
    const { result, tasks } = await agent.TaskList({});
    expect(tasks.map((t) => t.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(result.split('\n').slice(-2)).toEqual(['#9 [pending] Task 9', '#10 [pending] Task 10']);
  });
});
