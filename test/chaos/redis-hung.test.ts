import type { PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import type { RedisProcess } from '../helpers/redis-process.ts';
import { failure, startDeadlineSetup, type DeadlineSetup } from '../helpers/store-deadline.ts';
import { rounds } from '../helpers/stress.ts';

const DEADLINE_MS = 2000;

describe('a hung Redis (SIGSTOP)', () => {
  let setup: DeadlineSetup;
  let redis: RedisProcess;
  let agent: PlanHubClient;

  beforeAll(async () => {
    setup = await startDeadlineSetup(DEADLINE_MS, ['one', 'two']);
    ({ redis, agent } = setup);
  });

  afterAll(() => setup?.close());

  it('answers each call UNAVAILABLE after one deadline for all its round trips, then serves again', async () => {
    redis.signal('SIGSTOP');
    for (let round = 0; round < rounds(1); round++) {
      const started = performance.now();
      // A write: the rate limit, the plan's load, the request-log lookup and the commit are separate round trips.
      const err = await failure(
        agent.call('setStepStatus', { step_id: 'step_1', status: 'completed' }, { requestId: `hung-${round}` }),
      );
      const elapsed = performance.now() - started;
      expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      // The specification itself, not a speed target: one deadline, where a timeout per round trip took several.
      expect(elapsed).toBeLessThan(2 * DEADLINE_MS);
    }
    redis.signal('SIGCONT');
    await eventually(async () =>
      expect(
        await agent.call('setStepStatus', { step_id: 'step_1', status: 'completed' }, { requestId: 'hung-0' }),
      ).toMatchObject({
        plan_id: expect.any(String) as unknown,
      }),
    );
  });
  it('leaves no failure unhandled when every read of an appended step outlasts the deadline', async () => {
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      for (let round = 0; round < rounds(3); round++) {
        // Enough calls in one rate window that the node counts the agent's next ones itself: the append then goes
        // straight to its reads (the plan's header and its step ranks, in flight together), not to a count.
        let planId = '';
        for (let i = 0; i < 6; i++) planId = (await agent.getPlanStatus({})).plan_id;
        redis.signal('SIGSTOP');
        try {
          // With its plan named, the call's first reads are the plan's own.
          const err = await failure(agent.call('addStep', { plan_id: planId, description: 'added while hung' }));
          expect(err).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('deadline') as unknown });
        } finally {
          redis.signal('SIGCONT');
        }
        // An unhandled rejection is reported after the microtasks of the turn it happened in.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', collect);
    }
    await eventually(async () => expect(await agent.call('getPlanStatus', {})).toHaveProperty('steps'));
  });

  it('keeps reads made beside a transaction (the log head, task counts, upgrades) within the one deadline', async () => {
    redis.signal('SIGSTOP');
    try {
      for (const [tool, args] of [
        ['getWorkspace', {}],
        ['TaskCreate', { subject: 'while Redis hangs', description: 'x' }],
        ['TaskList', {}],
      ] as const) {
        const started = performance.now();
        const err = await failure(agent.call(tool, args));
        const elapsed = performance.now() - started;
        expect(err, tool).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
        // One deadline, where each read made straight on the store waited a command timeout (5 s) of its own.
        expect(elapsed, tool).toBeLessThan(2 * DEADLINE_MS);
      }
    } finally {
      redis.signal('SIGCONT');
    }
    await eventually(async () => expect(await agent.call('getWorkspace', {})).toHaveProperty('agents'));
  });
});
