import type { Plan } from '@planhub/shared';
import { newPlan } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';

const NOW = '2026-01-01T00:00:00.000Z';
/** A seed-004 plan as stored before round 30: its working_dir kept as the agent wrote it, trailing slash and all. */
const LEGACY_DIR = '/srv/repo/';

const legacyPlan = (): Plan => ({
  ...newPlan({
    plan_id: 'legacy01',
    workspace: 'ws',
    agent_id: 'planner',
    title: 'Legacy',
    dialect: '004',
    steps: [{ description: 'only' }],
    now: NOW,
  }),
  status: 'in_progress',
  working_dir: LEGACY_DIR,
});

/**
 * A plan stored before working_dirs were read as folders is listed under the text it was written as. Once changed
 * it is listed under its folder too; when retention then removed it, its entry under the folder stayed, and the
 * folder's get_plan answered "Plan not found" instead of the folder's other plan.
 */
describe('a 004 plan stored under a working_dir as written, then removed by retention', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('leaves the folder listing its other plans', async () => {
    const prefix = uniquePrefix();
    h = await startHarness('redis', { approvalPolicy: 'auto', redisPrefix: prefix, finishedPlansKept: 1 });
    const redis = new Redis(inject('redisUrl'));
    try {
      const doc = (key: string, value: unknown) =>
        redis.hset(`${prefix}:{ws}:doc:${key}`, 'v', '1', 'd', JSON.stringify(value));
      await doc('plan:legacy01', legacyPlan());
      await doc('agent:planner', {
        agent_id: 'planner',
        plans: [
          {
            plan_id: 'legacy01',
            dialect: '004',
            finished: false,
            created_at: NOW,
            changed_at: NOW,
            working_dir: LEGACY_DIR,
          },
        ],
      });
      await redis.hset(`${prefix}:{ws}:hash:workdir:${LEGACY_DIR}`, 'legacy01', NOW);
    } finally {
      redis.disconnect();
    }
    const planner = await h.client('planner');
    const other = await h.client('other');
    const worker = await h.client('worker');
    const kept = await other.create_plan({ title: 'Kept', steps: [{ description: 's' }], working_dir: '/srv/repo' });
    // Changed (and ended) now: listed under /srv/repo as the newest plan there.
    await planner.update_plan({ plan_id: 'legacy01', step_index: 0, working_dir: '/srv/repo' });
    // A later plan of the planner's ends too, past finishedPlansKept = 1: the legacy plan is removed.
    const later = await planner.create_plan({ title: 'Later', steps: [{ description: 's' }] });
    await planner.update_plan({ plan_id: later.plan_id, step_index: 0 });
    expect((await refusal(planner.get_plan({ plan_id: 'legacy01' }))).code).toBe('NOT_FOUND');

    expect((await worker.get_plan({ working_dir: '/srv/repo' })).plan_id).toBe(kept.plan_id);
  });
});
