import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createMemoryPresence } from '../../server/src/store/presence/memory-presence.ts';
import type { PresenceBackend } from '../../server/src/store/presence/presence-backend.ts';
import { createRedisPresence, type PresenceRedis } from '../../server/src/store/presence/redis-presence.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';

const TTL = 60_000;
const prefix = uniquePrefix();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  redis.disconnect();
  await deletePrefix(inject('redisUrl'), prefix);
});

/** The real client, counting the commands presence sends by name. */
const counted = (sent: Map<string, number>): PresenceRedis =>
  new Proxy(redis, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        sent.set(name, (sent.get(name) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

const backends: Array<[string, () => { presence: PresenceBackend; sent: Map<string, number> }]> = [
  ['memory', () => ({ presence: createMemoryPresence(), sent: new Map() })],
  [
    'redis',
    () => {
      const sent = new Map<string, number>();
      return { presence: createRedisPresence(counted(sent), `${prefix}-${Math.random()}`), sent };
    },
  ],
];

describe.each(backends)('whether one agent is online (%s presence)', (kind, open) => {
  it('answers what the whole workspace read says of the agent, for every agent', async () => {
    const { presence } = open();
    const now = Date.now();
    const at = new Date(now).toISOString();
    await presence.beat('n1', now, TTL);
    await presence.beat('n2', now, TTL);
    await presence.beat('gone', now - 2 * TTL, TTL);
    const entry = (agent_id: string, connections: number) => ({ agent_id, connections, last_seen_at: at });
    await presence.write('n1', 'ws', [entry('both', 0), entry('left', 0), entry('here', 2)]);
    await presence.write('n2', 'ws', [entry('both', 1)]);
    await presence.write('gone', 'ws', [entry('on-dead-node', 3)]);
    await presence.write('n1', 'other', [entry('elsewhere', 1)]);

    const whole = await presence.read('ws', now);
    for (const agent of ['both', 'left', 'here', 'on-dead-node', 'elsewhere', 'never'])
      expect(await presence.online('ws', agent, now), agent).toBe(whole.get(agent)?.online ?? false);
    expect(await presence.online('ws', 'both', now)).toBe(true);
    expect(await presence.online('ws', 'on-dead-node', now)).toBe(false);

    // The last connection closes on n2: offline, as the whole read says too.
    await presence.write('n2', 'ws', [entry('both', 0)]);
    expect(await presence.online('ws', 'both', now)).toBe(false);
    expect((await presence.read('ws', now)).get('both')?.online).toBe(false);
    // A node whose heartbeat lapsed no longer counts.
    expect(await presence.online('ws', 'here', now + 2 * TTL)).toBe(false);
  });

  it('reads the agent’s own entries, not every agent that ever connected to the workspace', async () => {
    const { presence, sent } = open();
    const now = Date.now();
    const at = new Date(now).toISOString();
    await presence.beat('n1', now, TTL);
    await presence.write(
      'n1',
      'ws',
      Array.from({ length: 2000 }, (_, i) => ({ agent_id: `past${i}`, connections: 0, last_seen_at: at })),
    );
    await presence.write('n1', 'ws', [{ agent_id: 'me', connections: 1, last_seen_at: at }]);
    sent.clear();
    expect(await presence.online('ws', 'me', now)).toBe(true);
    expect(await presence.online('ws', 'past7', now)).toBe(false);
    // On Redis: the live nodes, then the agent's field on each (memory sends nothing).
    expect(sent.get('hgetall') ?? 0).toBe(0);
    if (kind === 'redis') expect(Object.fromEntries(sent)).toEqual({ zrangebyscore: 2, hmget: 2 });
  });
});
