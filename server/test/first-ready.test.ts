import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { firstReady } from '../src/store/redis/first-ready.ts';

/** An ioredis client as firstReady sees it: an emitter of 'ready' (ioredis' Commander is one). */
const connecting = () => new EventEmitter() as EventEmitter & { once(event: 'ready', l: () => void): unknown };

describe('firstReady', () => {
  it('holds one listener however many callers wait, and releases them all at the first ready', async () => {
    const redis = connecting();
    const waits = Array.from({ length: 50 }, () => firstReady(redis, 60_000, () => false));
    expect(redis.listenerCount('ready')).toBe(1);
    redis.emit('ready');
    await Promise.all(waits);
    expect(redis.listenerCount('ready')).toBe(0);
  });

  it('gives up after its own wait, and a later caller still waits for the ready', async () => {
    const redis = connecting();
    await firstReady(redis, 10, () => false);
    let released = false;
    const later = firstReady(redis, 60_000, () => false).then(() => (released = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(released).toBe(false);
    expect(redis.listenerCount('ready')).toBe(1);
    redis.emit('ready');
    await later;
    expect(released).toBe(true);
  });

  it('does not wait once the client is up', async () => {
    const redis = connecting();
    await firstReady(redis, 60_000, () => true);
    expect(redis.listenerCount('ready')).toBe(0);
  });
});
