import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

/**
 * Upstream cleans the list only after a call that completed a task ("status == completed" in the request, then every
 * task completed); deleting the last open task is no completion, so the completed tasks stay listed.
 */
describe.each(STORE_KINDS)('seed 003 cleanup runs after a completion only (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const start = async () => {
    h = await startHarness(store, { limits: { callsPerSecond: 100_000 } });
    return h.client('main');
  };

  it('keeps the completed tasks listed when the last open task is deleted', async () => {
    const agent = await start();
    for (const subject of ['One', 'Two', 'Three']) await agent.TaskCreate({ subject, description: '' });
    await agent.TaskUpdate({ taskId: '2', status: 'completed' });
    await agent.TaskUpdate({ taskId: '3', status: 'completed' });
    expect(await agent.TaskUpdate({ taskId: '1', status: 'deleted' })).toEqual({
      result: 'Updated task #1 deleted',
      unblocked: [],
      cleaned_up: false,
    });
    expect((await agent.TaskList({})).result).toBe('#2 [completed] Two\n#3 [completed] Three');
  });

  it('still cleans when a later task completes, and never reuses an id', async () => {
    const agent = await start();
    for (const subject of ['One', 'Two']) await agent.TaskCreate({ subject, description: '' });
    await agent.TaskUpdate({ taskId: '2', status: 'completed' });
    await agent.TaskUpdate({ taskId: '1', status: 'deleted' });
    expect((await agent.TaskCreate({ subject: 'Three', description: '' })).task.id).toBe('3');
    const done = await agent.TaskUpdate({ taskId: '3', status: 'completed' });
    expect(done).toMatchObject({ cleaned_up: true });
    expect(done.task).toBeUndefined();
    expect((await agent.TaskList({})).result).toBe('No tasks found.');
    expect((await agent.TaskCreate({ subject: 'Four', description: '' })).task.id).toBe('4');
  });

  it('cleans when the task left open after a deletion completes, freed by the deleted blocker', async () => {
    const agent = await start();
    for (const subject of ['Done', 'Blocker', 'Waiting']) await agent.TaskCreate({ subject, description: '' });
    await agent.TaskUpdate({ taskId: '1', status: 'completed' });
    await agent.TaskUpdate({ taskId: '3', addBlockedBy: ['2'] });
    expect(await agent.TaskUpdate({ taskId: '2', status: 'deleted' })).toMatchObject({
      unblocked: ['3'],
      cleaned_up: false,
    });
    expect(await agent.TaskUpdate({ taskId: '3', status: 'completed' })).toMatchObject({ cleaned_up: true });
    expect((await agent.TaskList({})).tasks).toEqual([]);
  });

  it('cleans only on the completion when a deletion and the last completion race', async () => {
    const agent = await start();
    const other = await h.client('other');
    for (let round = 0; round < rounds(10); round++) {
      const doomed = (await agent.TaskCreate({ subject: 'doomed', description: '' })).task.id;
      const last = (await agent.TaskCreate({ subject: 'last', description: '' })).task.id;
      const [deleted, completed] = await Promise.all([
        agent.TaskUpdate({ taskId: doomed, status: 'deleted' }),
        other.TaskUpdate({ taskId: last, status: 'completed' }),
      ]);
      expect(deleted.cleaned_up).toBe(false);
      const { tasks } = await agent.TaskList({});
      // Deleted first: the completion finds every task completed and cleans. Completed first: #last stays listed.
      expect(tasks.map((t) => [t.id, t.status])).toEqual(completed.cleaned_up ? [] : [[last, 'completed']]);
      if (!completed.cleaned_up) await agent.TaskUpdate({ taskId: last, status: 'deleted' });
    }
    const next = (await agent.TaskCreate({ subject: 'next', description: '' })).task.id;
    expect(await agent.TaskUpdate({ taskId: next, status: 'completed' })).toMatchObject({ cleaned_up: true });
  });
});
