import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { captureLog } from '../security/support/capture-log.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

const LEVEL_ERROR = 50;
const items = (tag: string) =>
  Array.from({ length: 5 }, (_, i) => ({
    content: `${tag}${i}`,
    activeForm: 'a',
    status: 'pending',
    pad: 'x'.repeat(7_000),
  }));

/** Redis at maxmemory with noeviction: writes answer RESOURCE_EXHAUSTED, the node is not ready until it recovers. */
describe('a Redis that refuses writes for lack of memory', () => {
  let redis: RedisProcess | undefined;
  let admin: Redis | undefined;
  let node: PlanHubServer | undefined;
  let idle: PlanHubServer | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await node?.close();
    await idle?.close();
    admin?.disconnect();
    await redis?.dispose();
  });

  it('answers RESOURCE_EXHAUSTED, logs it at error and reports store_out_of_memory until memory is freed', async () => {
    redis = await startRedisProcess({ args: ['--maxmemory-policy', 'noeviction'] });
    admin = new Redis(redis.url);
    const captured = captureLog();
    node = createServer(
      { port: 0, redisUrl: redis.url, redisPrefix: 'oom', approvalPolicy: 'auto' },
      { log: captured.log },
    );
    const { url } = await node.listen();
    const agent = await rawClient(url, openAuth('ws', 'a'));
    clients.push(agent);
    const ready = async () => {
      const res = await fetch(`${url}/readyz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await agent.call('todo', { action: 'create', todos: items('first') })).ok).toBe(true);
    expect((await ready()).status).toBe(200);

    // A maxmemory just above what Redis uses now: a few more calls fill it.
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    await admin.config('SET', 'maxmemory', String(used + 512 * 1024));
    let refused: CallAck | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const ack = await agent.call('todo', { action: 'create', todos: items(`n${i}-`) });
      if (!ack.ok) refused = ack;
    }
    expect(refused).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
    expect(refused && !refused.ok && refused.error.message).toMatch(/^The store is out of memory; /);
    // Keep Redis over its limit from here on: freed buffers could otherwise bring it just under, and let one of the
    // writes below through (seen once in a full run on a loaded machine).
    const full = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    await admin.config('SET', 'maxmemory', String(Math.max(1, full - 256 * 1024)));
    expect(await ready()).toMatchObject({ status: 503, body: { reason: 'store_out_of_memory' } });
    // Reads still work, those of sets and hashes too (getWorkspace's agents and plans, 003's task list): they were
    // read in a MULTI, which a Redis over maxmemory refuses whole, and answered INTERNAL.
    expect((await agent.call('todo', { action: 'list' })).ok).toBe(true);
    expect(await agent.call('getWorkspace', {})).toMatchObject({ ok: true, result: { agents: [{ agent_id: 'a' }] } });
    expect(await agent.call('TaskList', {})).toMatchObject({ ok: true });
    // A write that reads collections first is refused for the memory, not as a fault.
    expect(await agent.call('TaskCreate', { subject: 's', description: 'd' })).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED' },
    });
    // Several refusals, one error line.
    for (let i = 0; i < 3; i++)
      expect(await agent.call('todo', { action: 'create', todos: items(`again${i}-`) })).toMatchObject({
        ok: false,
        error: { code: 'RESOURCE_EXHAUSTED' },
      });
    const errors = captured.lines.filter((l) => l.level === LEVEL_ERROR && /out of memory/.test(l.msg));
    expect(errors).toHaveLength(1);

    await admin.config('SET', 'maxmemory', '0');
    expect((await ready()).status).toBe(200);
    expect((await agent.call('todo', { action: 'create', todos: items('after') })).ok).toBe(true);
  });

  it('turns a node unready when Redis is full although none of its own writes was refused', async () => {
    redis = await startRedisProcess({ args: ['--maxmemory-policy', 'noeviction'] });
    admin = new Redis(redis.url);
    const captured = captureLog();
    // A node no agent calls: before, it answered 200 while Redis refused every write (only a refused write of its
    // own turned it), so a balancer kept sending agents to it.
    idle = createServer({ port: 0, redisUrl: redis.url, redisPrefix: 'oom' }, { log: captured.log });
    const { url } = await idle.listen();
    const ready = async () => {
      const res = await fetch(`${url}/readyz`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await ready()).status).toBe(200);

    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
    await admin.config('SET', 'maxmemory', String(Math.max(1, used - 256 * 1024)));
    expect(await ready()).toMatchObject({ status: 503, body: { reason: 'store_out_of_memory' } });
    expect(captured.lines.filter((l) => l.level === LEVEL_ERROR && /out of memory/.test(l.msg))).toHaveLength(1);

    await admin.config('SET', 'maxmemory', '0');
    expect((await ready()).status).toBe(200);
  });
});
