import { describe, expect, it } from 'vitest';
import { justBefore, liveProbe } from '../src/live-cursor.ts';
import { SubscriptionTracker } from '../src/subscriptions.ts';

describe("the read that fixes where '$' stands", () => {
  it('is made for a long-poll and a subscription only', () => {
    expect(liveProbe('getTaskEvents', { after_event: '$', timeout: 5, agent_id: 'a' })).toEqual({
      after_event: '$',
      timeout: 0,
      agent_id: 'a',
    });
    expect(liveProbe('getTaskEvents', { after_event: '$' })).toBeUndefined();
    expect(liveProbe('getTaskEvents', { after_event: '$', timeout: 5, before_event: '1-0' })).toBeUndefined();
    expect(liveProbe('getTaskEvents', { after_event: '1-0', timeout: 5 })).toBeUndefined();
    expect(liveProbe('subscribeToTasks', { event_types: ['step_completed'], plan_id: 'p', after_event: '$' })).toEqual({
      after_event: '$',
      timeout: 0,
      limit: 1,
      event_types: ['step_completed'],
      plan_id: 'p',
    });
    expect(liveProbe('subscribeToTasks', { event_types: ['step_completed'] })).toBeUndefined();
    // A client with a resume cursor starts a new connection's stream after it.
    expect(liveProbe('subscribeToTasks', { event_types: ['step_completed'], after_event: '$' }, true)).toBeUndefined();
    expect(liveProbe('getPlanStatus', { after_event: '$' })).toBeUndefined();
  });

  it('starts a subscription right before the first event it saw', () => {
    expect(justBefore('1700000000000-3')).toBe('1700000000000-2');
    expect(justBefore('1700000000000-0')).toBe(`1699999999999-${Number.MAX_SAFE_INTEGER}`);
  });
});

describe("a subscription's after_event on each attempt", () => {
  const live = { event_types: ['step_completed' as const], after_event: '$' };

  it("is where '$' was fixed until this connection's stream runs or the client has a resume cursor", () => {
    const tracker = new SubscriptionTracker();
    expect(tracker.resuming(live, undefined, '5-0')).toEqual({ ...live, after_event: '5-0' });
    expect(tracker.resuming(live, undefined)).toEqual(live);
    expect(tracker.resuming(live, '3-0', '5-0')).toEqual({ ...live, after_event: '3-0' });
    expect(tracker.resuming({ ...live, after_event: '1-0' }, undefined, '5-0')).toEqual({
      ...live,
      after_event: '1-0',
    });
    tracker.record(live, { subscription_id: 's', last_event_id: '5-0' } as never);
    // A subscription joins a running stream where it stands.
    expect(tracker.resuming(live, '5-0', '6-0')).toEqual(live);
    tracker.newConnection();
    expect(tracker.resuming(live, '5-0', '6-0')).toEqual({ ...live, after_event: '5-0' });
  });
});
