import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { Renewal, type SubscriptionStateInfo } from '../src/renewal.ts';

const filter = { event_types: ['plan_created' as const] };

describe('renewing subscriptions', () => {
  it('retries with backoff until the renewal succeeds, reporting each failure', async () => {
    const reports: SubscriptionStateInfo[] = [];
    let calls = 0;
    const renewal = new Renewal({
      filters: () => [filter],
      subscribe: () => (++calls <= 3 ? Promise.reject(new PlanHubError('UNAVAILABLE', 'down')) : Promise.resolve()),
      report: (info) => reports.push(info),
      backoff: { baseMs: 1, maxMs: 2 },
    });
    await renewal.run();
    expect(reports.map((r) => `${r.state}:${r.attempt}:${r.error?.code ?? ''}`)).toEqual([
      'renewing:0:',
      'failed-retrying:1:UNAVAILABLE',
      'failed-retrying:2:UNAVAILABLE',
      'failed-retrying:3:UNAVAILABLE',
      'live:0:',
    ]);
  });

  it('stops at once, pending backoff included', async () => {
    const reports: string[] = [];
    const renewal = new Renewal({
      filters: () => [filter],
      subscribe: () => Promise.reject(new PlanHubError('UNAVAILABLE', 'down')),
      report: (info) => reports.push(info.state),
      backoff: { baseMs: 60_000, maxMs: 60_000 },
    });
    const running = renewal.run();
    await expect.poll(() => reports.length).toBe(2);
    renewal.stop();
    await running;
    expect(reports).toEqual(['renewing', 'failed-retrying']);
  });
});
