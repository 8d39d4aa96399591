import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startHarness, uniquePrefix, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const STORES: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];
const PLAN = { summary: 'Refactor', approach: 'carefully', steps: [{ id: 1, description: 'do it' }] };

/**
 * Writes and deletes documents raw, as an earlier version left them: Redis commands on Redis (a hash { v, d } per
 * document, as every version stored them), a bare commit on the memory and file stores. `null` deletes.
 */
const writeRaw = async (h: Harness, prefix: string | undefined, docs: Record<string, unknown>) => {
  if (prefix === undefined) {
    const writes = Object.entries(docs).map(([key, value]) => ({ key, value }));
    expect((await h.server.services.store.commit('ws', { reads: [], writes, events: [] })).ok).toBe(true);
    return;
  }
  const redis = new Redis(inject('redisUrl'));
  try {
    for (const [key, value] of Object.entries(docs))
      if (value === null) await redis.del(`${prefix}:{ws}:doc:${key}`);
      else await redis.hset(`${prefix}:{ws}:doc:${key}`, 'v', '4', 'd', JSON.stringify(value));
  } finally {
    redis.disconnect();
  }
};

const stored = async (h: Harness, ...keys: string[]) =>
  (await h.server.services.store.load('ws', keys)).map((d) => d.value);

/**
 * Builds before 534ad52 (0.1.0 among them) kept an agent's seed-002 mode as `mode002:<agent>`; the key is
 * `planMode:<agent>` since. An agent exploring or waiting for approval when the deployment upgraded is still there.
 */
describe.each(STORES)('002 plan mode stored under the key of an earlier version (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => {
    const prefix = kind === 'redis' ? uniquePrefix() : undefined;
    h = await startHarness(kind, prefix ? { redisPrefix: prefix } : {});
    return prefix;
  };

  it('is read, decided on and moved to the new key by the next write', async () => {
    const prefix = await start();
    // The presenter's plan as plan_exit makes it; its mode document then moved to where the earlier version kept it.
    const presenter = await h.client('presenter');
    await presenter.plan_enter({ goal: 'Plan the refactor' });
    const { plan_id } = await presenter.plan_exit({ plan: PLAN });
    const [presented] = await stored(h, 'planMode:presenter');
    expect(presented).toMatchObject({ goal: 'Plan the refactor', plan_id });
    await writeRaw(h, prefix, {
      'planMode:presenter': null,
      'mode002:presenter': presented,
      // The explorer entered plan mode under 0.1.0: its mode document and the agent index of that version.
      'mode002:explorer': { goal: 'Explore before writing', entered_at: NOW },
      agents: { agents: ['explorer', 'presenter'] },
    });
    const explorer = await h.client('explorer');

    expect(await explorer.plan_status({})).toMatchObject({
      mode: 'plan',
      goal: 'Explore before writing',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
    });
    expect(await explorer.isToolBlocked('write_file', { path: 'x' })).toBe(true);
    expect(await presenter.plan_status({})).toMatchObject({ mode: 'awaiting_approval', plan_id });
    const overview = await presenter.getWorkspace({});
    expect(overview.agents.map((a) => [a.agent_id, a.mode])).toEqual([
      ['explorer', 'plan'],
      ['presenter', 'awaiting_approval'],
    ]);

    expect(await presenter.plan_approve({})).toMatchObject({ plan_id, mode: 'executing' });
    expect(await presenter.plan_status({})).toMatchObject({ mode: 'executing', plan_id });
    expect(await presenter.plan_step_complete({ step_id: 1, verification_result: 'checked' })).toMatchObject({
      plan_id,
    });

    // The explorer's next mode write stores it under the new key and deletes the old one.
    const exited = await explorer.plan_exit({ plan: PLAN });
    expect(exited).toMatchObject({ mode: 'awaiting_approval' });
    expect(await stored(h, 'planMode:explorer', 'mode002:explorer')).toEqual([
      { goal: 'Explore before writing', entered_at: NOW, plan_id: exited.plan_id },
      undefined,
    ]);
    // Leaving plan mode deletes both, so the old document never comes back in place of the new state.
    expect(await presenter.plan_reject({})).toMatchObject({ mode: 'normal', plan_id });
    expect(await stored(h, 'planMode:presenter', 'mode002:presenter')).toEqual([undefined, undefined]);
    expect(await presenter.plan_status({})).toMatchObject({ mode: 'normal' });
  });

  it('reads the new key where both are stored, and deletes both when the agent leaves plan mode', async () => {
    const prefix = await start();
    await writeRaw(h, prefix, {
      'mode002:a': { goal: 'Older', entered_at: NOW },
      'planMode:a': { goal: 'Newer', entered_at: NOW },
    });
    const a = await h.client('a');
    expect(await a.plan_status({})).toMatchObject({ mode: 'plan', goal: 'Newer' });
    expect(await a.plan_reject({})).toMatchObject({ mode: 'normal' });
    expect(await stored(h, 'planMode:a', 'mode002:a')).toEqual([undefined, undefined]);
    expect(await a.plan_status({})).toMatchObject({ mode: 'normal' });
    expect(await a.isToolBlocked('write_file', { path: 'x' })).toBe(false);
  });

  it('answers INTERNAL naming the old key when its document is corrupt', async () => {
    const prefix = await start();
    await writeRaw(h, prefix, { 'mode002:a': { goal: 7 } });
    const a = await h.client('a');
    await expect(a.plan_status({})).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('mode002:a') as string,
    });
  });
});

/**
 * 0.1.0 listed every task owner among the workspace's agents and registered no task caller; the split of its task
 * list registers an owner that created a task, as its next task call would.
 */
describe.each(STORES)('agents of a task list written by 0.1.0 (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('lists an agent that only used tasks, and not a name given only as an owner', async () => {
    const prefix = kind === 'redis' ? uniquePrefix() : undefined;
    h = await startHarness(kind, prefix ? { redisPrefix: prefix } : {});
    const task = (id: string, created_by: string, owner: string) => ({
      id,
      subject: `Task ${id}`,
      description: '',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
      owner,
      created_by,
      created_at: NOW,
      updated_at: NOW,
    });
    await writeRaw(h, prefix, {
      tasks: { high_water: 2, tasks: { '1': task('1', 'tasker', 'tasker'), '2': task('2', 'tasker', 'made-up') } },
      agents: { agents: ['planner'] },
    });
    const planner = await h.client('planner');
    const overview = await planner.getWorkspace({});
    expect(overview.agents.map((a) => [a.agent_id, a.tasks.map((t) => t.id)])).toEqual([
      ['planner', []],
      ['tasker', ['1']],
    ]);
  });
});
