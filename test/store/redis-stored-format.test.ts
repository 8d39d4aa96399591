import { connect, PlanHubError } from '@planhub/client-sdk';
import { createLogger, createRedisStore, createServer, STORED_FORMAT } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { uniquePrefix } from '../helpers/servers.ts';

const node = async (prefix: string) => {
  const server = createServer({
    port: 0,
    logLevel: 'silent',
    redisUrl: inject('redisUrl'),
    redisPrefix: prefix,
    approvalPolicy: 'auto',
  });
  const { url } = await server.listen();
  return { server, url };
};

const refusal = (err: unknown) => (err instanceof PlanHubError ? { code: err.code, message: err.message } : err);

/**
 * Each node raises `<prefix>:format` to its own build's stored format, and a node that finds a higher one (a newer
 * build started on the same Redis, or the operator rolled back across a format change) refuses rather than misread
 * or corrupt what the newer build wrote: before the record, a round-13 node beside a newer one livelocked its
 * fan-ins ("write contention" for 5.5 s, nothing logged), and older builds misread renamed keys as absent.
 */
describe('the stored format record on Redis', () => {
  let admin: Redis;
  beforeAll(() => {
    admin = new Redis(inject('redisUrl'));
  });
  afterAll(async () => {
    await admin.quit();
  });

  it('is written by the first node and raised from an older record, never lowered', async () => {
    const prefix = uniquePrefix();
    const first = await node(prefix);
    const client = await connect({ url: first.url, workspace: 'w', agentId: 'x', retries: 0 });
    await client.createPlan({ title: 'Format', steps: ['one'] });
    expect(await admin.get(`${prefix}:format`)).toBe(String(STORED_FORMAT));
    client.close();
    await first.server.close();

    await admin.set(`${prefix}:format`, '0');
    const second = await node(prefix);
    await eventually(async () => expect(await admin.get(`${prefix}:format`)).toBe(String(STORED_FORMAT)));
    await second.server.close();
  });

  it('turns a node older than the data unready, refuses its calls and moves its clients off', async () => {
    const prefix = uniquePrefix();
    const old = await node(prefix);
    const states: string[] = [];
    const client = await connect({
      url: old.url,
      workspace: 'w',
      agentId: 'x',
      retries: 0,
      onState: (state) => states.push(state),
    });
    const { plan_id } = await client.createPlan({ title: 'Before', steps: ['one'] });

    // A newer build starts on the same Redis.
    await admin.set(`${prefix}:format`, String(STORED_FORMAT + 1));

    await eventually(
      async () => {
        const res = await fetch(`${old.url}/readyz`);
        expect(res.status).toBe(503);
        expect(((await res.json()) as { reason: string }).reason).toBe('store_format_newer');
      },
      { timeout: 15_000 },
    );
    // Its clients are disconnected once, so a balancer can move them to a ready node.
    await eventually(() => expect(states).toContain('disconnected'), { timeout: 15_000 });
    await eventually(async () => {
      const refused = refusal(
        await client.setStepStatus({ plan_id, step_id: 'step_1', status: 'in_progress' }).catch((e: unknown) => e),
      );
      expect(refused).toMatchObject({ code: 'FAILED_PRECONDITION' });
      expect((refused as { message: string }).message).toMatch(/older than the data in its store/);
    });
    // It never lowers the record.
    expect(await admin.get(`${prefix}:format`)).toBe(String(STORED_FORMAT + 1));
    client.close();
    await old.server.close();
  }, 60_000);

  it('refuses a record that is not a format number, naming the key', async () => {
    const prefix = uniquePrefix();
    await admin.set(`${prefix}:format`, 'banana');
    const odd = await node(prefix);
    // With retries: the node disconnects its clients once when it finds the record, which may cut this call.
    const client = await connect({ url: odd.url, workspace: 'w', agentId: 'x' });
    const refused = refusal(await client.createPlan({ title: 'No', steps: ['one'] }).catch((e: unknown) => e));
    expect(refused).toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect((refused as { message: string }).message).toContain(`${prefix}:format`);
    expect(await admin.keys(`${prefix}:{*`)).toEqual([]);
    client.close();
    await odd.server.close();
  });
  it('refuses a commit made before the store first connected, once that connection found a newer record', async () => {
    const prefix = uniquePrefix();
    await admin.set(`${prefix}:format`, String(STORED_FORMAT + 1));
    const store = createRedisStore({
      url: inject('redisUrl'),
      prefix,
      eventRetention: 1000,
      log: createLogger('silent'),
    });
    try {
      // Sent at once, before the first 'ready': it waits for startup, which includes reading the record.
      const early = await store
        .commit('ws', { reads: [], writes: [{ key: 'plan:p1', value: { title: 'old node' } }], events: [] })
        .then(
          () => 'applied',
          (err: unknown) => refusal(err),
        );
      expect(early).toMatchObject({ code: 'FAILED_PRECONDITION' });
      expect(await admin.exists(`${prefix}:{ws}:doc:plan:p1`)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
