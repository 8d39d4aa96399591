import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createEventFeed, type FeedConnection } from '../src/store/redis/event-feed.ts';

/** A subscriber connection whose SSUBSCRIBEs wait until the test settles them (as Redis failing them would). */
const scriptedSubscriber = () => {
  const listeners: Record<string, ((...args: never[]) => void)[]> = {};
  const pending: ((err: Error) => void)[] = [];
  const connection = {
    ssubscribe: () => new Promise((_resolve, reject) => pending.push(reject)),
    sunsubscribe: () => Promise.resolve(1),
    on: (event: string, listener: (...args: never[]) => void) => (listeners[event] ??= []).push(listener),
  } as unknown as FeedConnection;
  return {
    connection,
    ready: () => listeners.ready?.forEach((l) => l()),
    /** Fails the next SSUBSCRIBE once one is on its way. */
    failNext: async () => {
      await vi.waitFor(() => expect(pending.length).toBeGreaterThan(0), { timeout: 5000, interval: 5 });
      pending.shift()?.(new Error('No sharded subscriber for slot: 1'));
    },
    inFlight: () => pending.length,
  };
};

const feedOn = (subscriber: ReturnType<typeof scriptedSubscriber>, readsBackPeriodically = false) =>
  createEventFeed({
    subscriber: subscriber.connection,
    channel: (w) => `{${w}}:feed`,
    readLast: () => Promise.resolve('0-0'),
    readAfter: () => Promise.resolve([]),
    log: pino({ level: 'silent' }),
    lingerMs: 0,
    readsBackPeriodically,
  });

describe('the event feed while a workspace subscription keeps failing', () => {
  it('is not live after 3 failures in a row, and live again once the workspace is no longer followed', async () => {
    const subscriber = scriptedSubscriber();
    const feed = feedOn(subscriber);
    subscriber.ready();
    const stop = feed.watch('ws', () => {});
    for (let i = 0; i < 3; i++) await subscriber.failNext();
    await vi.waitFor(() => expect(feed.live()).toBe(false));
    stop();
    await vi.waitFor(() => expect(feed.following()).toBe(0));
    expect(feed.live()).toBe(true);
    feed.close();
  });

  it('does not count an attempt that fails after its workspace was left', async () => {
    const subscriber = scriptedSubscriber();
    const feed = feedOn(subscriber);
    subscriber.ready();
    const stop = feed.watch('ws', () => {});
    await subscriber.failNext();
    await subscriber.failNext();
    // The third attempt is on its way when the last watcher leaves; it fails afterwards.
    await vi.waitFor(() => expect(subscriber.inFlight()).toBe(1));
    stop();
    await vi.waitFor(() => expect(feed.following()).toBe(0));
    await subscriber.failNext();
    // The rejection's handler runs in a microtask: after the next turn it has run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(feed.live()).toBe(true);
    expect(subscriber.inFlight()).toBe(0);
    feed.close();
  });
});

describe('the event feed of a Redis Cluster, which reads every followed log back every 2 s', () => {
  it('stays live while a workspace subscription keeps failing: the read-back delivers its events', async () => {
    const subscriber = scriptedSubscriber();
    const feed = feedOn(subscriber, true);
    subscriber.ready();
    feed.watch('ws', () => {});
    for (let i = 0; i < 4; i++) await subscriber.failNext();
    // Its retry is under way again: the failures were seen, and counted as nothing.
    await vi.waitFor(() => expect(subscriber.inFlight()).toBe(1), { timeout: 5000, interval: 5 });
    expect(feed.live()).toBe(true);
    feed.close();
  });
});
