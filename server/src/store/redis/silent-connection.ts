import type { Logger } from 'pino';

/** What a watched connection needs: ioredis' `Redis` has both. */
export interface PingedConnection {
  ping(): Promise<unknown>;
  disconnect(reconnect?: boolean): void;
}

/** ioredis' words when its commandTimeout gives up on a command ("Command timed out"). */
const timedOut = (err: unknown) => err instanceof Error && /timed out/i.test(err.message);

/**
 * Pings a connection, and replaces it once `timeouts` pings in a row went unanswered. A TCP flow that the network
 * drops without a FIN or RST (a NAT or firewall idle timeout, a frozen VM, a failover behind a floating IP) stays
 * "connected" until the kernel gives up: about 2 h 11 min for an idle subscriber (it sends nothing, so it never
 * notices; the node stayed deaf to other nodes' events with /readyz at 200), about 15 min for the command
 * connection (every command timed out meanwhile while a new connection would have answered at once). ioredis does
 * not reconnect on a command timeout, so this does, through its own reconnect path: the subscriber's 'ready' then
 * resubscribes and reads back what it missed (event-feed.ts).
 *
 * Only timeouts count: a refused or closed connection is already reconnecting. A Redis that is itself hung (stopped,
 * `CLIENT PAUSE`) costs a reconnect per `timeouts` pings, nothing more: commands fail fast either way (no offline
 * queue, no resend), and the new connection answers once Redis does.
 */
export const watchSilence = (connection: PingedConnection, name: string, log: Logger, timeouts: number) => {
  let unanswered = 0;
  return {
    /** Resolves or rejects as the connection's PING does. */
    ping: async (): Promise<void> => {
      try {
        await connection.ping();
        unanswered = 0;
      } catch (err) {
        if (timedOut(err) && ++unanswered >= timeouts) {
          unanswered = 0;
          log.warn(
            { connection: name },
            `Redis answered no PING on the ${name} ${timeouts === 1 ? 'in time' : `${timeouts} times in a row`}: ` +
              'replacing it (a connection the network dropped without closing it stays silent)',
          );
          connection.disconnect(true);
        }
        throw err;
      }
    },
  };
};

/**
 * One watch per connection of a set that changes (a Cluster's per-master connections): a connection keeps its count
 * of unanswered pings from one round of pings to the next, and a replaced one starts afresh.
 */
export const watchersOf = (log: Logger, timeouts: number) => {
  const watched = new WeakMap<PingedConnection, ReturnType<typeof watchSilence>>();
  return (connection: PingedConnection, name: string) => {
    let watcher = watched.get(connection);
    if (!watcher) {
      watcher = watchSilence(connection, name, log, timeouts);
      watched.set(connection, watcher);
    }
    return watcher;
  };
};

/** What a watched Cluster needs: ioredis' `Cluster` lists its per-master connections. */
export interface ClusterConnections {
  nodes(role: 'master'): (PingedConnection & { options: { host?: string; port?: number } })[];
}

/**
 * The same watch on a Redis Cluster, where ioredis holds one command connection per master: a PING to one random node
 * (what `Cluster.ping()` sends) says nothing of the others, and a silent connection to the master of a workspace's
 * slot timed out every call of that workspace while the rest answered. Every master is pinged; a connection replaced
 * here ends (a Cluster's node connections do not reconnect themselves), and the Cluster makes a new one at its next
 * slot refresh. Resolves once every master answered.
 */
export const watchClusterSilence = (cluster: ClusterConnections, name: string, log: Logger, timeouts: number) => {
  const watched = watchersOf(log, timeouts);
  const watcherOf = (node: ReturnType<ClusterConnections['nodes']>[number]) =>
    watched(node, `${name} to ${node.options.host}:${node.options.port}`);
  return {
    ping: async (): Promise<void> => {
      await Promise.all(cluster.nodes('master').map((node) => watcherOf(node).ping()));
    },
  };
};
