/**
 * Every Redis key and channel of the Redis store, in one place. A workspace's keys share the hash tag
 * `{<workspace>}`, so a Redis Cluster keeps each workspace on one slot and a commit's Lua script may touch them all.
 */

/** Escapes the characters that would make two keys collide (`:` between parts) or break the hash tag (`{`, `}`). */
const SPECIAL = /[%:{}]/;
// Most ids hold none of these: testing first skips building a replaced copy of every part of every key.
const part = (value: string) =>
  SPECIAL.test(value)
    ? value.replace(/[%:{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    : value;

export interface RedisKeys {
  /** Hash `{ v: version, d: JSON }` of one document. */
  doc(workspace: string, docKey: string): string;
  /** A set, hash, counter or sorted set of a workspace (changed only by commutative operations of a commit). */
  set(workspace: string, key: string): string;
  hash(workspace: string, key: string): string;
  counter(workspace: string, key: string): string;
  zset(workspace: string, key: string): string;
  /** Stored bytes of a workspace (documents' JSON + events kept): the workspaceBytes quota's count. */
  bytes(workspace: string): string;
  /** The workspace event log (a stream; entries `{ e: envelope JSON without event_id }`). */
  events(workspace: string): string;
  /** The newest event id the log's retention trimmed (a string): how a reader behind it learns of its gap. */
  trimmed(workspace: string): string;
  /** A remembered request answer (string, expires by PX). */
  request(workspace: string, agentId: string, requestId: string): string;
  /** The workspace's sharded pub/sub channel (SPUBLISH/SSUBSCRIBE), in its hash tag so it lives on its slot. */
  channel(workspace: string): string;
  /** An agent's remembered request_ids by when they were answered (sorted set): what bounds their number. */
  requestIndex(workspace: string, agentId: string): string;
  /** The store's epoch: a random id written once into an empty store, to notice a wiped Redis. */
  readonly epoch: string;
  /** The stored format of the data under the prefix (a number, stored-format.ts). */
  readonly format: string;
}

/**
 * The Redis type of each kind of workspace key, by the part after the workspace's hash tag up to its first ":": a key
 * of another type is corrupt (wrong-type.ts names it). Kept beside the builders, so a new kind gets its type here.
 */
export const KEY_TYPES: Readonly<Record<string, string>> = {
  doc: 'hash',
  hash: 'hash',
  set: 'set',
  zset: 'zset',
  ctr: 'string',
  reqs: 'zset',
  req: 'string',
  events: 'stream',
  bytes: 'string',
  trimmed: 'string',
};

export const redisKeys = (prefix: string): RedisKeys => {
  if (/[{}]/.test(prefix)) throw new Error(`The Redis key prefix "${prefix}" must not contain { or }.`);
  const ws = (workspace: string) => `${prefix}:{${part(workspace)}}`;
  return {
    doc: (workspace, docKey) => `${ws(workspace)}:doc:${docKey}`,
    set: (workspace, key) => `${ws(workspace)}:set:${key}`,
    hash: (workspace, key) => `${ws(workspace)}:hash:${key}`,
    counter: (workspace, key) => `${ws(workspace)}:ctr:${key}`,
    zset: (workspace, key) => `${ws(workspace)}:zset:${key}`,
    events: (workspace) => `${ws(workspace)}:events`,
    bytes: (workspace) => `${ws(workspace)}:bytes`,
    trimmed: (workspace) => `${ws(workspace)}:trimmed`,
    request: (workspace, agentId, requestId) => `${ws(workspace)}:req:${part(agentId)}:${requestId}`,
    channel: (workspace) => `${ws(workspace)}:feed`,
    requestIndex: (workspace, agentId) => `${ws(workspace)}:reqs:${part(agentId)}`,
    epoch: `${prefix}:epoch`,
    format: `${prefix}:format`,
  };
};
