import type { Cluster } from 'ioredis';
import type { Logger } from 'pino';
import { RESUBSCRIBED_EVENT, shardSubscribersOf, type ShardSubscriber } from './shard-subscribers.ts';
import { watchersOf } from './silent-connection.ts';

interface ShardSubscriberWatchOptions {
  /** How the log names the connections ("subscriber connection to host:port"). */
  name: string;
  log: Logger;
  /** Unanswered PINGs in a row after which a connection is replaced. */
  timeouts: number;
  /** Once a replaced connection's subscriptions are in effect: what was published meanwhile is read back. */
  onResubscribed(): void;
}

interface ShardSubscriberWatch {
  /** Pings every shard's subscriber connection that is up; rejects if one did not answer. */
  ping(): Promise<void>;
  stop(): void;
}

/**
 * The single-Redis subscriber's watch (silent-connection.ts), on a Cluster's subscriber, which holds one connection per
 * master: a connection the network dropped without closing it heard none of its shard's messages while its kernel
 * kept the flow (hours), the events of that shard's workspaces reached this node only through the feed's periodic
 * read-back, and /readyz stayed 200. A PING is valid on a connection in subscribed mode, so each is pinged, and one
 * left unanswered is ended: ioredis then makes a new one at its next slot refresh and subscribes the shard's channels
 * on it again. Its 'end' is a '-node', which reads every followed log back (cluster-resync.ts); `onResubscribed` reads
 * them back again once the new subscriptions are in effect, for what was published between the two.
 */
export const watchShardSubscriberSilence = (
  subscriber: Cluster,
  options: ShardSubscriberWatchOptions,
): ShardSubscriberWatch => {
  const { name, log, timeouts } = options;
  const list = shardSubscribersOf(subscriber);
  if (!list) {
    log.error(
      { connection: name },
      "this ioredis does not hold a Cluster's shard subscriber connections where the store expects " +
        '(shard-subscribers.ts): one the network drops without closing it is not replaced, and the events of its ' +
        'workspaces reach this node only through the periodic read-back',
    );
    return { ping: async () => {}, stop: () => {} };
  }
  const watched = watchersOf(log, timeouts);
  const watcherOf = ({ node, connection }: ShardSubscriber) => watched(connection, `${name} to ${node}`);

  // Only connections that are up: a PING on one not started yet would connect it behind its ShardedSubscriber's back
  // (it connects lazily, once its shard has a channel), and one that is closed is being replaced already.
  const pingEvery = () =>
    Promise.allSettled(
      list()
        .filter(({ connection }) => connection.status === 'ready')
        .map((shard) => watcherOf(shard).ping()),
    );
  const onResubscribed = () => {
    // ioredis wrote each shard's SSUBSCRIBEs before emitting this: a PING behind them on the same connection is
    // answered once they are in effect, so a read-back after it misses nothing published since.
    void pingEvery().then(() => options.onResubscribed());
  };
  subscriber.on(RESUBSCRIBED_EVENT, onResubscribed);
  return {
    ping: async () => {
      const failed = (await pingEvery()).find((pinged) => pinged.status === 'rejected');
      if (failed) throw failed.reason;
    },
    stop: () => void subscriber.off(RESUBSCRIBED_EVENT, onResubscribed),
  };
};
