import type { Cluster, Redis } from 'ioredis';

/**
 * The only place the store reaches into ioredis internals. A Cluster made with `shardedSubscribers: true` holds one
 * subscriber connection per master, and ioredis (5.11) offers no public way to reach them: not to ping one, nor to
 * end one the network forgot (silent-shard-subscriber.ts). What is relied on, exactly:
 * - `cluster.shardedSubscribers`, the ClusterSubscriberGroup, and its `shardedSubscribers` map: the master's
 *   `host:port` → its ShardedSubscriber;
 * - `ShardedSubscriber.getInstance()`: its Redis connection (null once stopped);
 * - a connection that ends ('end': its retryStrategy is null) is replaced by the group at the Cluster's next slot
 *   refresh, which sends the shard's SSUBSCRIBEs again on the new one and then emits 'subscribersReady' on the Cluster.
 * test/store/redis-shard-subscribers.test.ts checks all of it on a real Redis Cluster, so an ioredis upgrade that
 * changes any of it fails there.
 */
interface ShardedSubscriberInternals {
  getInstance(): Redis | null;
}
interface SubscriberGroupInternals {
  shardedSubscribers: Map<string, ShardedSubscriberInternals>;
}

export interface ShardSubscriber {
  /** The master's `host:port`, as the Cluster's slot map names it. */
  node: string;
  connection: Redis;
}

/** The Cluster event, emitted once the subscriber group sent its SSUBSCRIBEs again after replacing a connection. */
export const RESUBSCRIBED_EVENT = 'subscribersReady';

const groupOf = (cluster: Cluster): SubscriberGroupInternals | undefined => {
  const group = (cluster as unknown as { shardedSubscribers?: Partial<SubscriberGroupInternals> }).shardedSubscribers;
  return group?.shardedSubscribers instanceof Map ? (group as SubscriberGroupInternals) : undefined;
};

/**
 * Lists a sharded-subscriber Cluster's per-master subscriber connections, or undefined if this ioredis does not hold
 * them where this file expects (the caller then cannot watch them, and says so).
 */
export const shardSubscribersOf = (cluster: Cluster): (() => ShardSubscriber[]) | undefined => {
  if (!groupOf(cluster)) return undefined;
  return () => {
    const listed: ShardSubscriber[] = [];
    for (const [node, subscriber] of groupOf(cluster)?.shardedSubscribers ?? []) {
      const connection = typeof subscriber.getInstance === 'function' ? subscriber.getInstance() : null;
      if (connection) listed.push({ node, connection });
    }
    return listed;
  };
};
