import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * A call naming a task that does not exist is refused with the seed's message and the ids that do exist. It used to
 * read every task document for that message: with 1,000 tasks of 25 KB metadata, 25 MB and 110-170 ms of node CPU per
 * refusal, charged one unit (the budget review flooded a node with them). It reads the set of ids now, so another
 * task's document, here a corrupt one, plays no part in it.
 */
describe.each(STORE_KINDS)('a task id that does not exist (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  const withCorruptTask = async () => {
    h = await startHarness(kind);
    const agent = await h.client('a');
    await agent.TaskCreate({ subject: 'One', description: 'first' });
    await agent.TaskCreate({ subject: 'Two', description: 'second' });
    const written = await h.server.services.store.commit('ws', {
      reads: [],
      writes: [{ key: 'task:1', value: { id: 1, subject: 'x' } }],
      events: [],
    });
    expect(written.ok).toBe(true);
    return agent;
  };
  const notFound = (id: string) => ({
    code: 'NOT_FOUND',
    message: expect.stringMatching(new RegExp(`Task #${id} not found\\. Existing tasks: #1, #2\\.$`)) as string,
  });

  it('is refused naming the tasks that exist, reading none of their documents', async () => {
    const agent = await withCorruptTask();
    await expect(agent.TaskGet({ taskId: '9' })).rejects.toMatchObject(notFound('9'));
    await expect(agent.TaskUpdate({ taskId: '9', status: 'completed' })).rejects.toMatchObject(notFound('9'));
    await expect(agent.TaskUpdate({ taskId: '2', addBlockedBy: ['9'] })).rejects.toMatchObject(notFound('9'));
  });

  it('keeps the order of the checks: a malformed edge after an existing task is INVALID_ARGUMENT', async () => {
    const agent = await withCorruptTask();
    await expect(agent.TaskUpdate({ taskId: '2', addBlocks: ['x1'] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('invalid format: x1') as string,
    });
  });

  it('deletes a task whose call also names a missing edge, as upstream ignores edges on a deletion', async () => {
    const agent = await withCorruptTask();
    const deleted = await agent.TaskUpdate({ taskId: '2', status: 'deleted', addBlocks: ['9'] });
    expect(deleted.result).toBe('Updated task #2 deleted');
    await expect(agent.TaskGet({ taskId: '2' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/Existing tasks: #1\.$/) as string,
    });
  });
});
