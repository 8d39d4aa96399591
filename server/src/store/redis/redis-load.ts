import type { AlongsideRead, CollectionRead, LoadedAlongside, LoadedCollections } from '../store.ts';
import { decodeRemembered } from '../request-fingerprint.ts';
import type { StoreCommands } from './commands.ts';
import type { CommandConnection } from './connect.ts';
import type { RedisKeys } from './redis-keys.ts';
import { docsOf, followArgs, followedOf, hashOf, rangeArgs, slicesOf } from './redis-replies.ts';
import type { StoreEpoch } from './store-epoch.ts';
import { nameWrongType } from './wrong-type.ts';

export interface RedisReads {
  client: CommandConnection & StoreCommands;
  keys: RedisKeys;
  epoch: StoreEpoch;
  /**
   * A wiped store is noticed by the epoch read with every load: in the load's own script on a single Redis (one
   * round trip fewer per call), beside it on a Redis Cluster, where the epoch lives in another slot.
   */
  epochInLoad: boolean;
}

/** Documents with hashes, ranges, follow reads and a remembered answer beside them, in one load.lua call. */
export const loadWithScript = async (
  { client, keys, epoch, epochInLoad }: RedisReads,
  workspace: string,
  docKeys: readonly string[],
  alongside: AlongsideRead,
): Promise<LoadedAlongside> => {
  const hashKeys = alongside.hashes ?? [];
  const ranges = alongside.ranges ?? [];
  const { request } = alongside;
  // Read with GET at the end: the request's remembered answer, then the epoch.
  const gets = [
    ...(request ? [keys.request(workspace, request.agent_id, request.request_id)] : []),
    ...(epochInLoad ? [keys.epoch] : []),
  ];
  const all = [
    ...docKeys.map((k) => keys.doc(workspace, k)),
    ...hashKeys.map((k) => keys.hash(workspace, k)),
    ...ranges.flatMap((r) => [
      keys.zset(workspace, r.key),
      r.values === undefined ? keys.zset(workspace, r.key) : keys.hash(workspace, r.values),
    ]),
    ...gets,
  ];
  const follow = alongside.follow ?? [];
  const args = [
    String(docKeys.length),
    String(hashKeys.length),
    String(gets.length),
    ...rangeArgs(ranges),
    ...followArgs(follow, hashKeys, keys.doc(workspace, '')),
  ];
  const loaded = client.phLoad(all.length, ...all, ...args).catch(async (err: unknown) => {
    throw await nameWrongType(err, client, all);
  });
  const [flat] = await Promise.all([loaded, epochInLoad || epoch.verify()]);
  if (epochInLoad) await epoch.confirm(flat.pop() as string | null | undefined);
  const remembered = request ? (flat.pop() as string | null | false | undefined) : undefined;
  const followed = follow.length > 0 ? followedOf(workspace, flat.splice(-follow.length)) : undefined;
  const alongsideAt = 2 * docKeys.length;
  return {
    docs: docsOf(workspace, docKeys, flat),
    hashes: hashKeys.map((_, i) => hashOf(flat[alongsideAt + i])),
    ranges: slicesOf(ranges, flat.slice(alongsideAt + hashKeys.length)),
    ...(request ? { request: typeof remembered === 'string' ? decodeRemembered(remembered, request) : undefined } : {}),
    ...(followed ? { followed } : {}),
  };
};

/** Sets, hashes and counters in one collections.lua call: one snapshot, so a commit never shows half of itself. */
export const loadCollections = async (
  { client, keys }: Pick<RedisReads, 'client' | 'keys'>,
  workspace: string,
  read: CollectionRead,
): Promise<LoadedCollections> => {
  const sets = read.sets ?? [];
  const hashes = read.hashes ?? [];
  const counters = read.counters ?? [];
  if (sets.length + hashes.length + counters.length === 0) return { sets: [], hashes: [], counters: [] };
  const names = [
    ...sets.map((key) => keys.set(workspace, key)),
    ...hashes.map((key) => keys.hash(workspace, key)),
    ...counters.map((key) => keys.counter(workspace, key)),
  ];
  const replies = await client
    .phCollections(names.length, ...names, String(sets.length), String(hashes.length))
    .catch(async (err: unknown) => {
      throw await nameWrongType(err, client, names);
    });
  return {
    sets: replies.slice(0, sets.length) as string[][],
    hashes: replies.slice(sets.length, sets.length + hashes.length).map(hashOf),
    counters: replies.slice(sets.length + hashes.length).map((v) => Number(typeof v === 'string' ? v : 0)),
  };
};
