import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import type { EventEnvelope, TaskView } from '@planhub/shared';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { uniquePrefix, type StoreKind } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

interface Cluster {
  /** Clients spread over the nodes: a and c on the first node, b on the last. */
  a: PlanHubClient;
  b: PlanHubClient;
  c: PlanHubClient;
  /** The workspace's event log, read through one node. */
  events(): Promise<EventEnvelope[]>;
  close(): Promise<void>;
}

/** Redis: two nodes on one key prefix (one workspace state). Memory: one node (the memory store serves one). */
const startCluster = async (kind: StoreKind): Promise<Cluster> => {
  const prefix = uniquePrefix();
  const config = {
    port: 0,
    logLevel: 'silent' as const,
    // Races make many calls per second from one agent; the per-agent rate limit is not under test here.
    limits: { tasksPerWorkspace: 100_000, callsPerSecond: 100_000 },
    ...(kind === 'redis' ? { redisUrl: inject('redisUrl'), redisPrefix: prefix } : {}),
  };
  const servers: PlanHubServer[] =
    kind === 'redis' ? [createServer(config), createServer(config)] : [createServer(config)];
  const urls = await Promise.all(servers.map(async (s) => (await s.listen()).url));
  const at = (i: number, agentId: string) =>
    connect({ url: urls[Math.min(i, urls.length - 1)] as string, agentId, workspace: 'ws' });
  const [a, b, c] = await Promise.all([at(0, 'a'), at(1, 'b'), at(0, 'c')]);
  return {
    a,
    b,
    c,
    events: () => (servers[0] as PlanHubServer).services.store.readEvents('ws', { count: 100_000 }),
    async close() {
      for (const client of [a, b, c]) client.close();
      await Promise.all(servers.map((s) => s.close()));
      if (kind === 'redis') await deletePrefix(inject('redisUrl'), prefix);
    },
  };
};

const settle = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: { code: string }) => err.code,
  );

/** Every edge on both ends, no duplicates, and no cycle among open edges. */
const expectSoundGraph = (tasks: readonly TaskView[]) => {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (const t of tasks) {
    expect(new Set(t.blockedBy).size).toBe(t.blockedBy.length);
    expect(new Set(t.blocks).size).toBe(t.blocks.length);
    for (const x of t.blockedBy) expect(byId.get(x)?.blocks).toContain(t.id);
    for (const x of t.blocks) expect(byId.get(x)?.blockedBy).toContain(t.id);
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string): void => {
    if (state.get(id) === 'done') return;
    expect(state.get(id), `cycle through task #${id}`).not.toBe('open');
    state.set(id, 'open');
    for (const next of byId.get(id)?.blockedBy ?? []) visit(next);
    state.set(id, 'done');
  };
  for (const t of tasks) visit(t.id);
};

const newTasks = async (client: PlanHubClient, n: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await client.TaskCreate({ subject: `t${i}`, description: '' })).task.id);
  return ids;
};

describe.each(['memory', 'redis'] as const)('seed 003 task races (%s store)', (kind) => {
  let cluster: Cluster;
  afterEach(async () => cluster.close());

  it('loses no update when agents on different nodes update the same task at once', async () => {
    cluster = await startCluster(kind);
    const { a, b } = cluster;
    for (let round = 0; round < rounds(50); round++) {
      const [id] = await newTasks(a, 1);
      const taskId = id as string;
      const results = await Promise.all([
        a.TaskUpdate({ taskId, subject: `by a ${round}`, metadata: { a: round } }),
        b.TaskUpdate({ taskId, owner: 'b', metadata: { b: round }, status: 'in_progress' }),
      ]);
      expect(results.map((r) => r.result)).toEqual([
        `Updated task #${taskId} subject, metadata`,
        `Updated task #${taskId} status, owner, metadata`,
      ]);
      const { task } = await b.TaskGet({ taskId });
      expect(task).toMatchObject({
        subject: `by a ${round}`,
        owner: 'b',
        status: 'in_progress',
        metadata: { a: round, b: round },
      });
    }
  });

  it('never lets concurrent edges close a cycle, nor leave half an edge', async () => {
    cluster = await startCluster(kind);
    const { a, b, c } = cluster;
    for (let round = 0; round < rounds(50); round++) {
      const [x, y, z] = (await newTasks(a, 3)) as [string, string, string];
      const pair = await Promise.all([
        settle(a.TaskUpdate({ taskId: x, addBlockedBy: [y] })),
        settle(b.TaskUpdate({ taskId: y, addBlockedBy: [x] })),
      ]);
      expect(pair.sort()).toEqual(['FAILED_PRECONDITION', 'ok']);
      const ring = await Promise.all([
        settle(a.TaskUpdate({ taskId: z, addBlocks: [x] })),
        settle(b.TaskUpdate({ taskId: x, addBlocks: [y] })),
        settle(c.TaskUpdate({ taskId: y, addBlocks: [z] })),
      ]);
      expect(ring).toContain('FAILED_PRECONDITION');
      expect(ring.every((r) => r === 'ok' || r === 'FAILED_PRECONDITION')).toBe(true);
    }
    expectSoundGraph((await c.TaskList({})).tasks);
  });

  it('hands out unique consecutive ids to concurrent creates on every node', async () => {
    cluster = await startCluster(kind);
    const { a, b, c } = cluster;
    const n = rounds(20);
    const clients = [a, b, c];
    const created = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (clients[i % 3] as PlanHubClient).TaskCreate({ subject: `s${i}`, description: '' }),
      ),
    );
    const ids = created.map((r) => Number(r.task.id)).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect((await a.TaskList({})).tasks.map((t) => t.id)).toEqual(ids.map(String));
  });

  it('unblocks a task exactly once when its two blockers complete at the same moment on two nodes', async () => {
    cluster = await startCluster(kind);
    const { a, b } = cluster;
    const unblockedIds: string[] = [];
    for (let round = 0; round < rounds(50); round++) {
      const [p, q, dependent] = (await newTasks(a, 3)) as [string, string, string];
      await a.TaskUpdate({ taskId: dependent, addBlockedBy: [p, q] });
      const [ra, rb] = await Promise.all([
        a.TaskUpdate({ taskId: p, status: 'completed' }),
        b.TaskUpdate({ taskId: q, status: 'completed' }),
      ]);
      expect([...ra.unblocked, ...rb.unblocked]).toEqual([dependent]);
      unblockedIds.push(dependent);
      expect((await b.TaskGet({ taskId: dependent })).task.blockedBy).toEqual([]);
    }
    const unblockEvents = (await cluster.events()).filter((e) => e.event_type === 'task_unblocked');
    expect(unblockEvents.map((e) => e.payload.task_id)).toEqual(unblockedIds);
    expectSoundGraph((await a.TaskList({})).tasks);
  });
});
