import type { CommandConnection } from './connect.ts';
import type { EventFeed } from './event-feed.ts';

/** How often a Cluster node reads its followed logs back even with no sign of a lost message. */
const PERIODIC_MS = 2000;

/**
 * On a Cluster a shard's subscriber can reconnect or move (failover, slot migration) without the Cluster emitting
 * 'ready', so the feed cannot see the gap by itself: topology changes trigger a read-back, and a periodic one bounds
 * how long a gap nobody announced can last. A read-back of a log with nothing new costs one XRANGE per workspace.
 */
export const clusterResync = (subscriber: CommandConnection, feed: EventFeed): (() => void) => {
  const onTopology = (why: string) => () => feed.resync(why, { quiet: false });
  subscriber.on('+node', onTopology('a cluster node was added'));
  subscriber.on('-node', onTopology('a cluster node was removed'));
  subscriber.on('node error', onTopology('a cluster node failed'));
  const timer = setInterval(() => feed.resync('periodic check', { quiet: true }), PERIODIC_MS);
  timer.unref();
  return () => clearInterval(timer);
};
