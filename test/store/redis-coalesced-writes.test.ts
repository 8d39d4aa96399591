import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { coalesceWrites } from '../../server/src/store/redis/coalesced-writes.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { uniquePrefix } from '../helpers/servers.ts';

/**
 * The store corks its command socket for one event-loop turn instead of using ioredis's auto-pipelining, which once
 * handed replies to the wrong callers. What must hold: every command of a turn gets its own reply, an error reply
 * stays with its command, and a reconnected socket is coalesced too.
 */
describe('coalesced writes on a real Redis', () => {
  const prefix = uniquePrefix();
  const opened: Redis[] = [];
  const connect = async () => {
    const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 0, enableOfflineQueue: false });
    opened.push(redis);
    coalesceWrites(redis);
    await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  };
  afterEach(async () => {
    for (const r of opened.splice(0)) r.disconnect();
    await deletePrefix(inject('redisUrl'), prefix);
  });

  /** One turn's worth of commands: sets, reads of each key, and commands that fail, interleaved. */
  const burst = (redis: Redis, n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => {
      const key = `${prefix}:${tag}:${i}`;
      return Promise.all([
        redis.set(key, `${tag}-${i}`),
        redis.get(key),
        i % 7 === 0
          ? redis.incr(key).then(
              () => 'no error',
              (err: unknown) => (err instanceof Error ? err.message : String(err)),
            )
          : Promise.resolve('skipped'),
        redis.strlen(key),
      ]);
    });

  it('hands each of 2,000 commands of one turn its own reply, errors included', async () => {
    const redis = await connect();
    const replies = await Promise.all(burst(redis, 500, 'a'));
    replies.forEach(([set, get, incr, len], i) => {
      expect(set).toBe('OK');
      expect(get).toBe(`a-${i}`);
      expect(len).toBe(`a-${i}`.length);
      if (i % 7 === 0) expect(incr).toMatch(/not an integer/);
    });
  });

  it('sends a turn of commands in fewer socket writes than commands', async () => {
    const redis = await connect();
    const socket = (redis as unknown as { stream: { uncork(): void } }).stream;
    const uncork = vi.spyOn(socket, 'uncork');
    await Promise.all(burst(redis, 100, 'b'));
    // 300+ commands went out; the socket was uncorked once per turn they were issued in, not once per command.
    expect(uncork.mock.calls.length).toBeGreaterThan(0);
    expect(uncork.mock.calls.length).toBeLessThan(10);
  });

  it('coalesces the new socket after a reconnect, and replies still match', async () => {
    const redis = await connect();
    const first = (redis as unknown as { stream: object }).stream;
    const admin = new Redis(inject('redisUrl'));
    opened.push(admin);
    // Only this connection: other test files share this Redis.
    const id = await redis.client('ID');
    const ready = new Promise((resolve) => redis.once('ready', resolve));
    await admin.client('KILL', 'ID', String(id));
    await ready;
    const second = (redis as unknown as { stream: { uncork(): void } }).stream;
    expect(second).not.toBe(first);
    const uncork = vi.spyOn(second, 'uncork');
    const replies = await Promise.all(burst(redis, 200, 'c'));
    replies.forEach(([, get], i) => expect(get).toBe(`c-${i}`));
    expect(uncork.mock.calls.length).toBeGreaterThan(0);
  });
});
