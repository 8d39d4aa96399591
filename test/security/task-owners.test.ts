import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** A task owner is free text: it stays on the task and never becomes an agent of the workspace. */
describe.each(STORE_KINDS)('task owners that are not agents (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('keeps made-up owners on their tasks and out of the agent list', async () => {
    h = await startHarness(store, { limits: { callsPerSecond: 10_000 } });
    const tasker = await h.client('tasker');
    const user = await h.client('boss', { role: 'user' });
    const fakes = 30;
    for (let i = 1; i <= fakes; i++) {
      await tasker.TaskCreate({ subject: `t${i}`, description: 'd' });
      await tasker.TaskUpdate({ taskId: String(i), owner: `ghost-${i}` });
    }

    const overview = await user.getWorkspace({});
    expect(overview.agents.map((a) => a.agent_id)).toEqual(['tasker']);
    expect(overview.tasks).toHaveLength(fakes);
    expect(overview.tasks.map((t) => t.owner)).toEqual(Array.from({ length: fakes }, (_, i) => `ghost-${i + 1}`));
  });
});
