import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

describe.each(STORE_KINDS)('seed 003 tasks through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const eventTypes = async () =>
    (await h.server.services.store.readEvents('ws', { count: 1000 }))
      .filter((e) => e.event_type.startsWith('task_'))
      .map((e) => `${e.event_type}:${String(e.payload.task_id)}`);

  it("runs the seed's typical flow: create, depend, list, start, complete, unblock, clean up", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.TaskList({})).toEqual({ result: 'No tasks found.', tasks: [] });
    expect(
      (
        await agent.TaskCreate({
          subject: 'Analyze requirements',
          description: 'Read the issue',
          activeForm: 'Analyzing',
        })
      ).result,
    ).toBe('Task #1 created successfully: Analyze requirements');
    expect((await agent.TaskCreate({ subject: 'Write code', description: 'Implement it' })).result).toBe(
      'Task #2 created successfully: Write code',
    );
    await agent.TaskCreate({ subject: 'Write tests', description: 'Cover it' });

    expect((await agent.TaskUpdate({ taskId: '2', addBlockedBy: ['1'] })).result).toBe('Updated task #2 blockedBy');
    expect((await agent.TaskUpdate({ taskId: '3', addBlockedBy: ['2'] })).result).toBe('Updated task #3 blockedBy');
    expect((await agent.TaskList({})).result).toBe(
      '#1 [pending] Analyze requirements\n#2 [pending] Write code [blocked by #1]\n#3 [pending] Write tests [blocked by #2]',
    );
    expect((await agent.TaskGet({ taskId: '2' })).result).toBe(
      'Task #2: Write code\nStatus: pending\nDescription: Implement it\nBlocked by: #1\nBlocks: #3\n',
    );

    expect((await agent.TaskUpdate({ taskId: '1', status: 'in_progress' })).result).toBe('Updated task #1 status');
    const done = await agent.TaskUpdate({ taskId: '1', status: 'completed' });
    expect(done).toMatchObject({ result: 'Updated task #1 status', unblocked: ['2'], cleaned_up: false });
    expect((await agent.TaskList({})).result).toBe(
      '#1 [completed] Analyze requirements\n#2 [pending] Write code\n#3 [pending] Write tests [blocked by #2]',
    );
    await agent.TaskUpdate({ taskId: '2', status: 'completed' });
    const last = await agent.TaskUpdate({ taskId: '3', status: 'completed' });
    expect(last).toMatchObject({ unblocked: [], cleaned_up: true });
    expect(last.task).toBeUndefined();
    expect((await agent.TaskList({})).result).toBe('No tasks found.');
    expect((await agent.TaskCreate({ subject: 'Next', description: '' })).result).toBe(
      'Task #4 created successfully: Next',
    );

    expect(await eventTypes()).toEqual([
      'task_created:1',
      'task_created:2',
      'task_created:3',
      'task_updated:2',
      'task_updated:1',
      'task_updated:3',
      'task_updated:2',
      'task_updated:1',
      'task_updated:1',
      'task_updated:2',
      'task_unblocked:2',
      'task_updated:2',
      'task_updated:3',
      'task_unblocked:3',
      'task_updated:3',
      'task_deleted:1',
      'task_deleted:2',
      'task_deleted:3',
      'task_created:4',
    ]);
  });

  it('refuses a cycle with the seed wording and leaves no partial write', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    for (const s of ['a', 'b', 'c']) await agent.TaskCreate({ subject: s, description: '' });
    await agent.TaskUpdate({ taskId: '1', addBlocks: ['2'] });
    const before = (await agent.TaskList({})).tasks;
    const eventsBefore = await eventTypes();
    expect(await refusal(agent.TaskUpdate({ taskId: '2', addBlocks: ['3', '1'], subject: 'renamed' }))).toEqual({
      code: 'FAILED_PRECONDITION',
      message: 'TaskUpdate adding Task #1 to blocks of Task #2 would create a cyclic dependency',
    });
    expect(await refusal(agent.TaskUpdate({ taskId: '3', addBlockedBy: ['3'] }))).toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
    expect(await refusal(agent.TaskUpdate({ taskId: '3', addBlockedBy: ['1', '7'] }))).toEqual({
      code: 'NOT_FOUND',
      message:
        'TaskUpdate update Task #3 blockedBy failed, err: failed to read task #7 for updating blocks: Task #7 not found. Existing tasks: #1, #2, #3.',
    });
    expect(await refusal(agent.TaskGet({ taskId: 'one' }))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'TaskGet validate task ID failed, err: invalid format: one',
    });
    expect((await agent.TaskList({})).tasks).toEqual(before);
    expect(await eventTypes()).toEqual(eventsBefore);
  });

  it('shares tasks across the workspace: another agent claims and updates them, a dashboard reads them', async () => {
    h = await startHarness(store);
    const lead = await h.client('lead');
    const worker = await h.client('worker');
    const dash = await h.client('board', { role: 'dashboard' });
    await lead.TaskCreate({ subject: 'Fix login bug', description: 'Users cannot log in', metadata: { prio: 1 } });
    expect(
      (await worker.TaskUpdate({ taskId: '1', owner: 'worker', metadata: { prio: null, area: 'auth' } })).result,
    ).toBe('Updated task #1 owner, metadata');
    const read = await dash.TaskGet({ taskId: '1' });
    expect(read.task).toMatchObject({ owner: 'worker', metadata: { area: 'auth' }, created_by: 'lead' });
    expect((await dash.TaskList({})).result).toBe('#1 [pending] Fix login bug [owner: worker]');
    expect((await refusal(dash.TaskCreate({ subject: 'x', description: '' }))).code).toBe('PERMISSION_DENIED');
    const elsewhere = await h.client('lead', { workspace: 'other' });
    expect((await elsewhere.TaskList({})).result).toBe('No tasks found.');
  });

  it('validates the status, keeps empty strings as unchanged and deletes with edge stripping', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    for (const s of ['a', 'b']) await agent.TaskCreate({ subject: s, description: '' });
    await agent.TaskUpdate({ taskId: '2', addBlockedBy: ['1'] });
    expect((await refusal(agent.TaskUpdate({ taskId: '1', status: 'done' }))).message).toBe(
      'TaskUpdate invalid task status: done. Valid statuses: pending, in_progress, completed, deleted (or omit it).',
    );
    expect((await agent.TaskUpdate({ taskId: '1', subject: '', status: '' })).result).toBe(
      'Updated task #1 (no changes)',
    );
    const deleted = await agent.TaskUpdate({ taskId: '1', status: 'deleted' });
    expect(deleted).toMatchObject({ result: 'Updated task #1 deleted', unblocked: ['2'] });
    expect((await agent.TaskGet({ taskId: '2' })).task).toMatchObject({ blockedBy: [], blocks: [] });
    expect((await refusal(agent.TaskGet({ taskId: '1' }))).code).toBe('NOT_FOUND');
    // Upstream's delete has no existence check: deleting an id that is gone answers the same, and changes nothing.
    const again = await agent.TaskUpdate({ taskId: '1', status: 'deleted' });
    expect(again).toEqual({ result: 'Updated task #1 deleted', unblocked: [], cleaned_up: false });
    expect(await agent.execute('TaskUpdate', { taskId: '42', status: 'deleted' })).toMatchObject({
      result: 'Updated task #42 deleted',
    });
    expect((await agent.TaskList({})).tasks.map((t) => t.id)).toEqual(['2']);
  });

  it('refuses tasks beyond the workspace limit with RESOURCE_EXHAUSTED', async () => {
    h = await startHarness(store, { limits: { tasksPerWorkspace: 2 } });
    const agent = await h.client('main');
    await agent.TaskCreate({ subject: 'a', description: '' });
    await agent.TaskCreate({ subject: 'b', description: '' });
    expect((await refusal(agent.TaskCreate({ subject: 'c', description: '' }))).code).toBe('RESOURCE_EXHAUSTED');
  });
});
