import type { StoreCommands } from './commands.ts';
import type { CommandConnection } from './connect.ts';
import type { PackedCommit } from './redis-commit.ts';

/** Longest a commit waits for its replicas; well inside the command timeout so the call still answers in time. */
const waitMs = (commandTimeoutMs: number) => Math.max(1, Math.min(1000, Math.floor(commandTimeoutMs / 2)));

/**
 * Runs commit.lua, then WAIT for `replicas` replicas, in one pipeline: on a Cluster a pipeline goes to the node of its
 * keys' slot, so the keyless WAIT asks the very master that ran the commit. Redis replicates asynchronously; without
 * WAIT a master killed right after replying takes acknowledged commits with it. A commit its replicas did not confirm
 * in time is reported as a failure (UNAVAILABLE): it may or may not survive a failover, and a retry with the same
 * request_id returns its remembered answer rather than doing the work twice.
 */
export const commitReplicated = async (
  client: CommandConnection & StoreCommands,
  packed: PackedCommit,
  replicas: number,
  commandTimeoutMs: number,
): Promise<string[]> => {
  const pipeline = client.pipeline() as ReturnType<CommandConnection['pipeline']> & {
    phCommit(numKeys: number, ...keysAndArg: string[]): unknown;
  };
  pipeline.phCommit(packed.keys.length, ...packed.keys, packed.arg);
  pipeline.wait(replicas, waitMs(commandTimeoutMs));
  const results = (await pipeline.exec()) ?? [];
  const [commitErr, reply] = results[0] ?? [new Error('no reply to the commit')];
  if (commitErr) throw commitErr;
  const [waitErr, reached] = results[1] ?? [new Error('no reply to WAIT')];
  if (waitErr) throw waitErr;
  if (Number(reached) < replicas)
    throw new Error(`commit reached ${String(reached)} of ${replicas} replicas before WAIT timed out`);
  return reply as string[];
};
