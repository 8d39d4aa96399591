import type { TaskView } from '@planhub/shared';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { STORE_KINDS, startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const task = (id: string, status: TaskView['status'], blocks: string[], blockedBy: string[]): TaskView => ({
  id,
  subject: `Task ${id}`,
  description: `Do ${id}.`,
  status,
  blocks,
  blockedBy,
  created_by: 'old',
  created_at: NOW,
  updated_at: NOW,
});

/** Seed 003's list as an earlier version stored it: one document; ids 5 and 6 were given out and deleted. */
const legacyList = {
  high_water: 6,
  tasks: {
    '1': task('1', 'in_progress', ['2'], []),
    '2': task('2', 'pending', ['4'], ['1']),
    '3': task('3', 'completed', [], []),
    '4': task('4', 'pending', [], ['2']),
  },
};

/** Writes the document as the earlier version stored it: a hash { v, d } (raw Redis commands). */
const writeLegacy = async (h: Harness, prefix: string | undefined) => {
  if (prefix === undefined) {
    const outcome = await h.server.services.store.commit('ws', {
      reads: [],
      writes: [{ key: 'tasks', value: legacyList }],
      events: [],
    });
    expect(outcome.ok).toBe(true);
    return;
  }
  const redis = new Redis(inject('redisUrl'));
  try {
    await redis.hset(`${prefix}:{ws}:doc:tasks`, 'v', '3', 'd', JSON.stringify(legacyList));
  } finally {
    redis.disconnect();
  }
};

describe.each(STORE_KINDS)('a seed 003 task list written by an earlier version (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('is split into one document per task and gives the same answers', async () => {
    const prefix = kind === 'redis' ? uniquePrefix() : undefined;
    h = await startHarness(kind, prefix ? { redisPrefix: prefix } : {});
    await writeLegacy(h, prefix);
    const a = await h.client('a');

    const listed = await a.TaskList({});
    expect(listed.tasks).toEqual(Object.values(legacyList.tasks));
    expect(listed.result).toBe(
      '#1 [in_progress] Task 1\n#2 [pending] Task 2 [blocked by #1]\n#3 [completed] Task 3\n#4 [pending] Task 4 [blocked by #2]',
    );
    expect((await h.server.services.store.load('ws', ['tasks']))[0]?.version).toBe(0);
    expect((await a.TaskGet({ taskId: '2' })).task).toEqual(legacyList.tasks['2']);
    await expect(a.TaskGet({ taskId: '5' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'TaskGet get Task #5 failed, err: Task #5 not found. Existing tasks: #1, #2, #3, #4.',
    });
    await expect(a.TaskUpdate({ taskId: '1', addBlockedBy: ['4'] })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'TaskUpdate adding Task #4 to blockedBy of Task #1 would create a cyclic dependency',
    });
    // The counter carries on after the highest id ever given out.
    expect((await a.TaskCreate({ subject: 'New', description: '' })).task.id).toBe('7');
    expect(await a.TaskUpdate({ taskId: '1', status: 'completed' })).toMatchObject({
      unblocked: ['2'],
      cleaned_up: false,
    });
    for (const id of ['2', '4']) await a.TaskUpdate({ taskId: id, status: 'completed' });
    const cleaned = await a.TaskUpdate({ taskId: '7', status: 'completed' });
    expect(cleaned).toEqual({ result: 'Updated task #7 status', unblocked: [], cleaned_up: true });
    expect((await a.TaskList({})).tasks).toEqual([]);
    expect((await a.TaskCreate({ subject: 'Next', description: '' })).task.id).toBe('8');
  });
});
