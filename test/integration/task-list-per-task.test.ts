import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

const AGENTS = 20;

describe.each(STORE_KINDS)('seed 003 tasks, one document each (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  const start = async () => {
    // The per-agent call budget is not under test; the task documents are.
    h = await startHarness(kind, { limits: { callsPerSecond: 100_000, tasksPerWorkspace: 100_000 } });
    return h;
  };
  const conflicts = async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]);

  it('lets 20 agents update and complete distinct tasks at once without one conflict or lost update', async () => {
    await start();
    const agents: PlanHubClient[] = await Promise.all(
      Array.from({ length: AGENTS }, (_, i) => h.client(`tasker-${i}`)),
    );
    const ids: string[] = [];
    for (const [i, agent] of agents.entries())
      ids.push((await agent.TaskCreate({ subject: `Task ${i}`, description: 'new' })).task.id);
    // A task nobody completes keeps the list from being cleaned up at the end.
    const keeper = (await (agents[0] as PlanHubClient).TaskCreate({ subject: 'Keeper', description: '' })).task.id;
    const writes = rounds(5);
    const before = await conflicts();
    await Promise.all(
      agents.map(async (agent, i) => {
        const taskId = ids[i] as string;
        await agent.TaskUpdate({ taskId, status: 'in_progress', owner: `tasker-${i}` });
        for (let n = 1; n <= writes; n++)
          await agent.TaskUpdate({ taskId, description: `revision ${n}`, metadata: { [`n${n}`]: n } });
        await agent.TaskUpdate({ taskId, status: 'completed' });
      }),
    );
    expect(await conflicts()).toBe(before);
    const { tasks } = await (agents[1] as PlanHubClient).TaskList({});
    expect(tasks.map((t) => t.id)).toEqual([...ids, keeper]);
    for (const [i, id] of ids.entries()) {
      const task = tasks.find((t) => t.id === id);
      expect(task).toMatchObject({ status: 'completed', owner: `tasker-${i}`, description: `revision ${writes}` });
      expect(Object.keys(task?.metadata ?? {})).toHaveLength(writes);
    }
  });

  it('cleans the list exactly once when its last open tasks complete at once, and never reuses an id', async () => {
    const harness = await start();
    const [a, b] = await Promise.all([harness.client('a'), harness.client('b')]);
    for (let round = 0; round < rounds(20); round++) {
      const first = (await a.TaskCreate({ subject: 'first', description: '' })).task.id;
      const second = (await a.TaskCreate({ subject: 'second', description: '' })).task.id;
      const results = await Promise.all([
        a.TaskUpdate({ taskId: first, status: 'completed' }),
        b.TaskUpdate({ taskId: second, status: 'completed' }),
      ]);
      expect(results.map((r) => r.cleaned_up).sort()).toEqual([false, true]);
      const cleaned = results.find((r) => r.cleaned_up);
      expect(cleaned?.task).toBeUndefined();
      expect(results.find((r) => !r.cleaned_up)?.task?.status).toBe('completed');
      expect((await b.TaskList({})).tasks).toEqual([]);
      expect(Number(second)).toBe(2 * round + 2);
    }
    expect((await a.TaskCreate({ subject: 'after', description: '' })).task.id).toBe(String(2 * rounds(20) + 1));
  });

  it('strips a deleted task from its neighbours, and cleans the list when the task it freed completes', async () => {
    const a = await (await start()).client('a');
    const done = (await a.TaskCreate({ subject: 'done', description: '' })).task.id;
    const open = (await a.TaskCreate({ subject: 'open', description: '' })).task.id;
    const waiting = (await a.TaskCreate({ subject: 'waiting', description: '' })).task.id;
    await a.TaskUpdate({ taskId: waiting, addBlockedBy: [open] });
    await a.TaskUpdate({ taskId: done, status: 'completed' });
    const deleted = await a.TaskUpdate({ taskId: open, status: 'deleted' });
    expect(deleted).toMatchObject({ unblocked: [waiting], cleaned_up: false });
    expect((await a.TaskGet({ taskId: waiting })).task.blockedBy).toEqual([]);
    await a.TaskUpdate({ taskId: waiting, status: 'completed' });
    expect((await a.TaskList({})).tasks).toEqual([]);
    const last = (await a.TaskCreate({ subject: 'last', description: '' })).task.id;
    expect(last).toBe('4');
    expect(await a.TaskUpdate({ taskId: last, status: 'deleted' })).toMatchObject({ cleaned_up: false });
  });
});
