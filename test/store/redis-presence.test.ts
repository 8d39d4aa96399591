import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisPresence, type PresenceRedis } from '../../server/src/store/presence/redis-presence.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';

const HEARTBEAT_TTL_MS = 1_000;

/**
 * A dead node's agents are handed to exactly one live node, which reports them offline. The hand-over is several
 * commands after the one (ZREM) that makes a node the taker: a command failing between them must not lose the
 * agents for good.
 */
describe("taking a dead node's agents on a real Redis", () => {
  const prefix = uniquePrefix();
  const redis = new Redis(inject('redisUrl'));
  afterAll(async () => {
    redis.disconnect();
    await deletePrefix(inject('redisUrl'), prefix);
  });

  /** The real client, with the next HGETALL of `failing` refused once (a Redis error mid-hand-over). */
  const flaky = (failing: { key?: string }): PresenceRedis =>
    new Proxy(redis, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'hgetall' || typeof value !== 'function') return value;
        return (key: string) => {
          if (key === failing.key) {
            failing.key = undefined;
            return Promise.reject(new Error('LOADING Redis is loading the dataset in memory'));
          }
          return (value as (k: string) => Promise<Record<string, string>>).call(target, key);
        };
      },
    });

  it('hands over what a failed attempt left to a later sweep, each agent once', async () => {
    const failing: { key?: string } = {};
    const presence = createRedisPresence(flaky(failing), prefix);
    const start = Date.now();
    const at = new Date(start).toISOString();
    await presence.beat('dead', start, HEARTBEAT_TTL_MS);
    await presence.write('dead', 'ws-1', [{ agent_id: 'a1', connections: 1, last_seen_at: at }]);
    await presence.write('dead', 'ws-2', [{ agent_id: 'a2', connections: 2, last_seen_at: at }]);
    const lapsed = start + HEARTBEAT_TTL_MS + 1;

    // The dead node's second workspace (in SMEMBERS order) fails to read.
    const [first, second] = await redis.smembers(`${prefix}:presence:node-ws:dead`);
    expect([first, second].sort()).toEqual(['ws-1', 'ws-2']);
    failing.key = `${prefix}:presence:ws:${second}`;
    const taken = await presence.takeLost(lapsed);
    expect(failing.key, 'the failure was injected').toBeUndefined();
    expect(taken.map((l) => l.workspace)).toEqual([first]);

    // The rest goes to the next sweep, and nothing is handed over twice.
    const rest = await presence.takeLost(lapsed + 300);
    expect(rest.map((l) => l.workspace)).toEqual([second]);
    expect(await presence.takeLost(lapsed + 600)).toEqual([]);

    const all = [...taken, ...rest].sort((a, b) => a.agent_id.localeCompare(b.agent_id));
    expect(all).toEqual([
      { workspace: 'ws-1', agent_id: 'a1', last_seen_at: at },
      { workspace: 'ws-2', agent_id: 'a2', last_seen_at: at },
    ]);
    for (const workspace of ['ws-1', 'ws-2'])
      expect([...(await presence.read(workspace, lapsed + 600)).values()]).toEqual([
        { online: false, last_seen_at: at },
      ]);
  });

  it('gives a node back when the hand-over fails before any agent was taken', async () => {
    const failing: { key?: string } = {};
    const presence = createRedisPresence(flaky(failing), `${prefix}-alone`);
    const start = Date.now();
    const at = new Date(start).toISOString();
    await presence.beat('dead', start, HEARTBEAT_TTL_MS);
    await presence.write('dead', 'ws-1', [{ agent_id: 'a1', connections: 1, last_seen_at: at }]);
    failing.key = `${prefix}-alone:presence:ws:ws-1`;
    await expect(presence.takeLost(start + HEARTBEAT_TTL_MS + 1)).rejects.toThrow(/LOADING/);
    expect(await presence.takeLost(start + HEARTBEAT_TTL_MS + 2)).toEqual([
      { workspace: 'ws-1', agent_id: 'a1', last_seen_at: at },
    ]);
    await deletePrefix(inject('redisUrl'), `${prefix}-alone`);
  });

  it('gives a node back lapsed by every clock, so a node whose clock is behind the taker’s still hears it lapsed', async () => {
    const failing: { key?: string } = {};
    const alone = `${prefix}-skew`;
    const presence = createRedisPresence(flaky(failing), alone);
    const start = Date.now();
    await presence.beat('stalled', start, HEARTBEAT_TTL_MS);
    await presence.write('stalled', 'ws-1', [
      { agent_id: 'a1', connections: 1, last_seen_at: new Date(start).toISOString() },
    ]);
    // The taker's clock runs a minute ahead of the stalled node's; its take fails before moving anything.
    const takerNow = start + 60_000;
    failing.key = `${alone}:presence:ws:ws-1`;
    await expect(presence.takeLost(takerNow)).rejects.toThrow(/LOADING/);
    expect(await redis.zscore(`${alone}:presence:nodes`, 'stalled')).toBe('0');
    // The node resumes on its own clock (behind the taker's, past its own lapse): its beat says it had lapsed, so it
    // announces its agents online again. Put back at the taker's now, the score would have read as a live lease.
    expect(await presence.beat('stalled', start + HEARTBEAT_TTL_MS + 1, HEARTBEAT_TTL_MS)).toBe(true);
    await deletePrefix(inject('redisUrl'), alone);
  });
});
