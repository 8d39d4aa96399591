import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { compareEventIds } from '@planhub/shared';
import { Redis } from 'ioredis';
import { startCluster, type Cluster } from '../../helpers/cluster.ts';
import { recordEvents, type EventLog } from '../../helpers/event-log.ts';
import { startRedisProcess, type RedisProcess } from '../../helpers/redis-process.ts';

/**
 * Real server processes on a redis-server of their own: the faults here (killing every pub/sub client, lowering the
 * output-buffer limits) would hit every other suite on the shared one.
 */
export interface ChaosCluster {
  cluster: Cluster;
  redis: RedisProcess;
  /** A plain command connection for the faults and the checks. */
  admin: Redis;
  close(): Promise<void>;
}

export const startChaosCluster = async (nodes = 2): Promise<ChaosCluster> => {
  const redis = await startRedisProcess();
  const cluster = await startCluster({ nodes, redisUrl: redis.url, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  const admin = new Redis(redis.url);
  return {
    cluster,
    redis,
    admin,
    async close() {
      admin.disconnect();
      await cluster.close();
      await redis.dispose();
    },
  };
};

/** A client that knows only `node`: it never fails over, so what it receives is what that node delivered. */
export const clientOn = (
  cluster: Cluster,
  node: number,
  agentId: string,
  workspace: string,
  role: 'agent' | 'dashboard' = 'agent',
) => cluster.client(agentId, { node, workspace, role, url: [cluster.urls[node] as string] });

export interface Watcher {
  workspace: string;
  client: PlanHubClient;
  log: EventLog;
}

/**
 * Subscribes a client of `node` to `types` in a workspace. A dashboard's connection writes nothing (an agent's
 * records it online), so a dashboard can watch a workspace that has no event at all yet.
 */
export const watch = async (
  cluster: Cluster,
  node: number,
  workspace: string,
  types: readonly string[],
  role: 'agent' | 'dashboard' = 'dashboard',
): Promise<Watcher> => {
  const client = await clientOn(cluster, node, `watcher-${workspace}`, workspace, role);
  const log = recordEvents(client);
  await client.subscribeToTasks({ event_types: [...types] } as Parameters<PlanHubClient['subscribeToTasks']>[0]);
  return { workspace, client, log };
};

/** The workspace log, read through `reader`'s node: the truth each watcher is compared with. */
export const logOf = async (reader: PlanHubClient, types: readonly string[]): Promise<EventEnvelope[]> => {
  const all: EventEnvelope[] = [];
  for (let after = '0-0'; ;) {
    const page = await reader.getTaskEvents({ after_event: after, limit: 500 });
    all.push(...page.events);
    if (page.events.length < 500) break;
    after = page.events.at(-1)?.event_id ?? after;
  }
  return all.filter((e) => types.includes(e.event_type));
};

/** Per workspace: how many logged events its watcher never received, and how many it received twice. */
export const deliveryReport = (watcher: Watcher, expected: readonly EventEnvelope[]) => {
  const got = watcher.log.events.map((e) => e.event_id);
  const seen = new Set(got);
  return {
    workspace: watcher.workspace,
    lost: expected.filter((e) => !seen.has(e.event_id)).length,
    duplicated: got.length - seen.size,
    outOfOrder: got.some((id, i) => i > 0 && compareEventIds(id, got[i - 1] as string) <= 0),
  };
};

/** Ids of the clients in pub/sub mode named like a PlanHub subscriber of this deployment. */
export const subscriberClients = async (admin: Redis, prefix: string) =>
  ((await admin.client('LIST')) as string)
    .split('\n')
    .filter((line) => line.includes(` name=planhub-sub:${prefix} `))
    .map((line) => ({
      id: /\bid=(\d+)/.exec(line)?.[1] ?? '',
      omem: Number(/\bomem=(\d+)/.exec(line)?.[1] ?? 0),
    }));
