import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { startHarness, uniquePrefix, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];
const LIMIT = 5;
const limitMessage = `TaskCreate refused: the workspace already holds ${LIMIT} tasks (limit ${LIMIT}). Complete or delete tasks first.`;

const settle = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (err: { code: string; message: string }) => ({ ok: false as const, code: err.code, message: err.message }),
  );

/** Every id up to the highest handed out: listed by TaskList exactly when TaskGet finds it (no task left unlisted). */
const expectEveryTaskListed = async (client: PlanHubClient, highest: number) => {
  const listed = new Set((await client.TaskList({})).tasks.map((t) => t.id));
  for (let id = 1; id <= highest; id++) {
    const got = await settle(client.TaskGet({ taskId: String(id) }));
    expect(got.ok, `task #${id}: listed ${listed.has(String(id))}`).toBe(listed.has(String(id)));
  }
};

describe.each(KINDS)('TaskCreate draws its id without contention (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  const start = async (tasksPerWorkspace = 100_000) => {
    // The per-agent call budget is not under test; the id counter and the task limit are.
    h = await startHarness(kind, { limits: { callsPerSecond: 100_000, tasksPerWorkspace } });
    return h;
  };
  const conflicts = async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]);
  const agents = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => h.client(`creator-${i}`)));

  it('gives agents creating at once consecutive ids, each create committing on its first attempt', async () => {
    await start();
    const clients = await agents(rounds(40));
    const before = await conflicts();
    const created = await Promise.all(
      clients.map((c, i) => c.TaskCreate({ subject: `task ${i}`, description: 'at once' })),
    );
    expect(await conflicts()).toBe(before);
    const ids = created.map((r) => Number(r.task.id)).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: clients.length }, (_, i) => i + 1));
    for (const r of created) expect(r.result).toBe(`Task #${r.task.id} created successfully: ${r.task.subject}`);
    const { tasks } = await (clients[0] as PlanHubClient).TaskList({});
    expect(tasks.map((t) => t.id)).toEqual(ids.map(String));
  });

  it('holds the task limit exactly when creates race past it', async () => {
    await start(LIMIT);
    const clients = await agents(LIMIT * 3);
    const outcomes = await Promise.all(
      clients.map((c, i) => settle(c.TaskCreate({ subject: `racer ${i}`, description: '' }))),
    );
    const refused = outcomes.filter((o) => !o.ok);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(LIMIT);
    expect(refused).toHaveLength(LIMIT * 2);
    for (const r of refused) expect(r).toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: limitMessage });
    const first = clients[0] as PlanHubClient;
    const { tasks } = await first.TaskList({});
    expect(tasks).toHaveLength(LIMIT);
    // Room again after a deletion: the next create gets an id past every one handed out (ids are never reused).
    const highest = Math.max(...tasks.map((t) => Number(t.id)));
    await first.TaskUpdate({ taskId: tasks[0]?.id as string, status: 'deleted' });
    const next = await first.TaskCreate({ subject: 'after the deletion', description: '' });
    expect(Number(next.task.id)).toBeGreaterThan(highest);
    await expect(first.TaskCreate({ subject: 'one too many', description: '' })).rejects.toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      message: limitMessage,
    });
  });

  it('answers a retried create from its request_id, drawing no id for it', async () => {
    await start();
    const [a] = await agents(1);
    const client = a as PlanHubClient;
    const args = { subject: 'once', description: '' };
    const first = await client.call('TaskCreate', args, { requestId: 'create-once' });
    const again = await client.call('TaskCreate', args, { requestId: 'create-once' });
    expect(again).toEqual(first);
    const next = await client.TaskCreate({ subject: 'next', description: '' });
    expect(Number(next.task.id)).toBe(Number(first.task.id) + 1);
    expect((await client.TaskList({})).tasks.map((t) => t.subject)).toEqual(['once', 'next']);
  });

  it('refuses metadata past the output limit before drawing an id', async () => {
    h = await startHarness(kind, { limits: { callsPerSecond: 100_000, outputBytes: 64 } });
    const [a] = await agents(1);
    const client = a as PlanHubClient;
    const refused = await settle(
      client.TaskCreate({ subject: 'big', description: '', metadata: { note: 'x'.repeat(200) } }),
    );
    expect(refused.ok).toBe(false);
    expect((refused as { message: string }).message).toContain('metadata');
    expect((await client.TaskCreate({ subject: 'first', description: '' })).task.id).toBe('1');
  });

  it('leaves no task unlisted when creates race the cleanup that empties the list', async () => {
    await start();
    const [a, b, c] = (await agents(3)) as [PlanHubClient, PlanHubClient, PlanHubClient];
    let highest = 0;
    for (let round = 0; round < rounds(15); round++) {
      const last = (await a.TaskCreate({ subject: `last open ${round}`, description: '' })).task.id;
      // a's completion empties the list; b creates and completes a task meanwhile, c creates one and leaves it open.
      const [, made, open] = await Promise.all([
        a.TaskUpdate({ taskId: last, status: 'completed' }),
        b.TaskCreate({ subject: `racer ${round}`, description: '' }).then(async (r) => {
          await b.TaskUpdate({ taskId: r.task.id, status: 'completed' });
          return r.task.id;
        }),
        c.TaskCreate({ subject: `left open ${round}`, description: '' }),
      ]);
      highest = Math.max(highest, Number(last), Number(made), Number(open.task.id));
      await c.TaskUpdate({ taskId: open.task.id, status: 'completed' });
    }
    await expectEveryTaskListed(a, highest);
  });
});

describe('TaskCreate across two nodes on one Redis', () => {
  let servers: PlanHubServer[] = [];
  let clients: PlanHubClient[] = [];
  let urls: string[] = [];
  let prefix = '';
  afterEach(async () => {
    for (const client of clients) client.close();
    await Promise.all(servers.map((s) => s.close()));
    await deletePrefix(inject('redisUrl'), prefix);
    servers = [];
    clients = [];
  });

  const start = async (tasksPerWorkspace: number) => {
    prefix = uniquePrefix();
    const config = {
      port: 0,
      logLevel: 'silent' as const,
      limits: { callsPerSecond: 100_000, tasksPerWorkspace },
      redisUrl: inject('redisUrl'),
      redisPrefix: prefix,
    };
    servers = [createServer(config), createServer(config)];
    urls = await Promise.all(servers.map(async (s) => (await s.listen()).url));
    return urls;
  };
  const open = (at: string[], n: number) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const client = await connect({
          url: urls[i % urls.length] as string,
          agentId: `node-racer-${i}`,
          workspace: 'ws',
        });
        clients.push(client);
        return client;
      }),
    );
  const conflicts = async () =>
    conflictsIn(await Promise.all(urls.map(async (url) => (await fetch(`${url}/metrics`)).text())));

  it('hands out distinct consecutive ids from both nodes, each create committing on its first attempt', async () => {
    const at = await start(100_000);
    const racers = await open(at, rounds(30));
    const before = await conflicts();
    const created = await Promise.all(racers.map((c, i) => c.TaskCreate({ subject: `n${i}`, description: '' })));
    expect(await conflicts()).toBe(before);
    expect(created.map((r) => Number(r.task.id)).sort((x, y) => x - y)).toEqual(
      Array.from({ length: racers.length }, (_, i) => i + 1),
    );
  });

  it('refuses every create past the limit, whichever node it reaches', async () => {
    const at = await start(LIMIT);
    const racers = await open(at, LIMIT * 4);
    const outcomes = await Promise.all(
      racers.map((c, i) => settle(c.TaskCreate({ subject: `r${i}`, description: '' }))),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(LIMIT);
    for (const o of outcomes.filter((x) => !x.ok))
      expect(o).toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: limitMessage });
    expect((await (racers[1] as PlanHubClient).TaskList({})).tasks).toHaveLength(LIMIT);
  });
});
