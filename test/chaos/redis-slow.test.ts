import type { PlanHubClient, PlanHubError } from '@planhub/client-sdk';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisProcess } from '../helpers/redis-process.ts';
import { failure, startDeadlineSetup, type DeadlineSetup } from '../helpers/store-deadline.ts';

const DEADLINE_MS = 1500;
/** Redis serves nothing for this long, again and again: every command waits up to it, none waits a deadline. */
const PAUSE_MS = 600;

describe('a slow Redis (CLIENT PAUSE, over and over)', () => {
  let setup: DeadlineSetup;
  let redis: RedisProcess;
  let agent: PlanHubClient;

  beforeAll(async () => {
    setup = await startDeadlineSetup(DEADLINE_MS, ['one']);
    ({ redis, agent } = setup);
  });

  afterAll(() => setup?.close());

  it('ends a call whose round trips together outlast its deadline, and applies its retry once', async () => {
    const pauser = new Redis(redis.url);
    let pausing = true;
    let paused!: () => void;
    /** Settles once Redis has answered the first CLIENT PAUSE (the pauser connects first): from then on it pauses. */
    const pausingNow = new Promise<void>((resolve) => (paused = resolve));
    const pauses = (async () => {
      while (pausing) {
        await pauser.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
        paused();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    let err: unknown;
    try {
      await Promise.race([pausingNow, pauses]);
      const started = performance.now();
      // addStep without plan_id: its count, the owner's index, the plan and the commit, one after another. Each
      // waits less than a deadline, so a timeout per command would let the call through after all four.
      err = await failure(agent.call('addStep', { description: 'added while slow' }));
      const elapsed = performance.now() - started;
      expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      expect((err as Error).message).toContain('deadline');
      // The specification, not a speed target: one deadline for the call, not one per round trip.
      expect(elapsed).toBeLessThan(2 * DEADLINE_MS);
    } finally {
      pausing = false;
      await pauses;
      await pauser.call('CLIENT', 'UNPAUSE');
      pauser.disconnect();
    }
    // The error names the request_id the SDK made for the call: a retry with it applies the step once, whether or
    // not the timed-out commit had applied.
    const { requestId } = err as PlanHubError;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const retried = await agent.call('addStep', { description: 'added while slow' }, { requestId });
    expect(retried).toMatchObject({ description: 'added while slow' });
    const status = await agent.getPlanStatus({});
    expect(status.steps.filter((s) => s.description === 'added while slow')).toHaveLength(1);
  });
});
