import type { Logger } from 'pino';
import type { StoreCommands } from './commands.ts';
import type { CommandConnection } from './connect.ts';
import type { PackedCommit } from './redis-commit.ts';

/** After a WAIT timed out, a workspace's commits skip WAIT this long (its master likely has no replica left). */
const DEGRADED_MS = 5000;

export interface ReplicatedCommits {
  commit(workspace: string, packed: PackedCommit): Promise<string[]>;
}

/**
 * Runs commit.lua, then WAIT for `replicas` replicas, in one pipeline: on a Cluster a pipeline goes to the node of its
 * keys' slot, so the keyless WAIT asks the very master that ran the commit. Redis replicates asynchronously; without
 * WAIT a master killed right after replying takes acknowledged commits with it.
 *
 * Availability first, as semi-synchronous replication does elsewhere: a commit its replicas did not confirm within
 * `waitMs` is still acknowledged (it is applied on the master; refusing it would not undo it), logged, and the
 * workspace's next commits skip WAIT for a few seconds, so a master left without replicas after a failover serves at
 * full speed, unprotected, until a replica is back. What is guaranteed: while each master has a live replica, a
 * single master failure loses no acknowledged commit.
 */
export const createReplicatedCommits = (options: {
  client: CommandConnection & StoreCommands;
  replicas: number;
  waitMs: number;
  log: Logger;
}): ReplicatedCommits => {
  const { client, replicas, log } = options;
  const degradedUntil = new Map<string, number>();
  const degraded = (workspace: string, now: number) => {
    const until = degradedUntil.get(workspace);
    if (until === undefined) return false;
    if (until > now) return true;
    degradedUntil.delete(workspace);
    return false;
  };
  const degrade = (workspace: string, now: number, reached: number) => {
    for (const [ws, until] of degradedUntil) if (until <= now) degradedUntil.delete(ws);
    degradedUntil.set(workspace, now + DEGRADED_MS);
    log.warn(
      { workspace, replicas, reached, degraded_ms: DEGRADED_MS },
      'commit not confirmed by its replicas in time; acknowledged without replication for a while',
    );
  };

  return {
    async commit(workspace, packed) {
      const args = [packed.keys.length, ...packed.keys, ...packed.args] as const;
      if (degraded(workspace, Date.now())) return client.phCommit(...args);
      const pipeline = client.pipeline() as ReturnType<CommandConnection['pipeline']> & {
        phCommit(numKeys: number, ...keysAndArg: string[]): unknown;
      };
      pipeline.phCommit(...args);
      pipeline.wait(replicas, options.waitMs);
      const results = (await pipeline.exec()) ?? [];
      const [commitErr, reply] = results[0] ?? [new Error('no reply to the commit')];
      if (commitErr) throw commitErr;
      const [waitErr, reached] = results[1] ?? [new Error('no reply to WAIT')];
      // The commit is applied either way: a failed WAIT only means its replication is unconfirmed.
      if (waitErr || Number(reached) < replicas) degrade(workspace, Date.now(), Number(reached ?? 0));
      return reply as string[];
    },
  };
};
