import type { Logger } from 'pino';
import type { EventEnvelope, NewEvent } from '@planhub/shared';
import type { LimitBackend } from './limits/limit-backend.ts';
import type { PresenceBackend } from './presence/presence-backend.ts';
import type { Remembered } from './request-fingerprint.ts';
import type { Revocations } from './revocations/revocations.ts';
import type * as Reads from './store-reads.ts';

// The read shapes live beside the interface (store-reads.ts); every importer of the store names them from here.
export type * from './store-reads.ts';

export interface DocRead {
  key: string;
  version: number;
}

export interface DocWrite {
  key: string;
  /** `null` deletes the document. */
  value: unknown;
}

/**
 * Commutative changes: two commits that both apply them never conflict, whatever their order. Sets, hashes and
 * counters live in their own key spaces (a set `x` and a document `x` are different things).
 */
export type StoreOp =
  /**
   * `max`: the set's bound. The commit is refused whole (`bound`, nothing written) when this op would leave the set
   * with more than `max` members. Checked, like the quota, before anything is written, for the commit's own ops (a
   * fired fan-in's ops are not checked).
   */
  | { op: 'sadd'; key: string; members: readonly string[]; max?: number }
  | { op: 'srem'; key: string; members: readonly string[] }
  /** `onlyNew`: a field already set keeps its value (HSETNX). */
  | { op: 'hset'; key: string; fields: Readonly<Record<string, string>>; onlyNew?: boolean }
  /** Removes fields (absent ones are ignored); a hash left without fields no longer exists. */
  | { op: 'hdel'; key: string; fields: readonly string[] }
  | { op: 'incr'; key: string; by: number }
  /** Sets each member's score (adding the member when absent): a move between score ranges is one write. */
  | { op: 'zadd'; key: string; members: Readonly<Record<string, number>> }
  | { op: 'zrem'; key: string; members: readonly string[] }
  | { op: 'del'; kind: 'set' | 'hash' | 'counter' | 'zset'; key: string }
  /**
   * Advances the version of the document `key` and leaves its value as it is (a missing document stays missing, at
   * a new version). Bumps never conflict with one another, but a commit that read the document checked conflicts
   * with every bump since: how additions to a collection by commutative operations stay independent of each other
   * while the one reader that must see them all (a step's end, reading who waits on it) still conflicts with each.
   */
  | { op: 'bump'; key: string };

/**
 * Replaces the JSON string literal `token` in a fired fan-in's writes and events by the hash's entries, sorted by
 * field: `object` gives `{field:value,…}` (fields are JSON-encoded keys, values JSON), `keys` gives `[field,…]`.
 */
export interface Fill {
  token: string;
  hash: string;
  as: 'object' | 'keys';
  /** `object` only: the most an event of `then` may grow to through this fill (FillCap). Documents get it whole. */
  cap?: FillCap;
}

/**
 * An event that an `object` fill would take past `bytes` (its JSON in UTF-8, the other fills spliced first) gets the
 * entries in field order, each whole while the event stays within `bytes` (or does not grow by it), and `marker` (JSON
 * text) in place of every other value. The JSON string literal `omitted` becomes the list of those fields
 * (`[field,…]`); it stands inside `member`, a piece of the event's text (`,"outputs_omitted":"<omitted>"`), which is
 * removed when every value is spliced whole. Every store computes the same text (fill.ts, commit.lua).
 */
export interface FillCap {
  bytes: number;
  marker: string;
  omitted: string;
  member: string;
}

/**
 * The one conditional of a commit ("the last one unblocks"): remove `member` from the outstanding set `set`; only
 * if that removed it, record `record` in its hash; only if the removal also left the set empty, apply `then` (its
 * reads are checked before anything applies, and only when it fires). A set that no longer holds the member (its
 * owner gave up and deleted it, or another commit removed it) changes nothing.
 */
export interface FanIn {
  set: string;
  member: string;
  record?: { hash: string; fields: Readonly<Record<string, string>> };
  then: {
    reads: readonly DocRead[];
    writes: readonly DocWrite[];
    ops: readonly StoreOp[];
    events: readonly NewEvent[];
    fills: readonly Fill[];
  };
  /**
   * Completes the call's answer (remembered for retries and handed back) with whether this fan-in fired: the JSON
   * string literal `token` in it becomes `value` when it fired, `null` when it did not.
   */
  answer?: { token: string; value: unknown };
}

export interface Commit {
  /** Documents whose version must be unchanged for the commit to apply. */
  reads: readonly DocRead[];
  writes: readonly DocWrite[];
  ops?: readonly StoreOp[];
  fanIns?: readonly FanIn[];
  events: readonly NewEvent[];
  /** When set, the answer is remembered for retries, and the commit conflicts if the request was already applied. */
  request?: {
    agent_id: string;
    request_id: string;
    answer: unknown;
    ttl_ms: number;
    /** The tool and arguments the request_id is bound to (`request-fingerprint.ts`). */
    fingerprint?: string;
    /**
     * At most this many answers are remembered per agent and workspace: the oldest is forgotten first, so a flood
     * of distinct request_ids cannot grow the store within the TTL. Unbounded when absent.
     */
    keep?: number;
  };
}

/**
 * `events`: the commit's own events, then those of the fan-ins that fired; `counters`: each `incr`'s new value;
 * `fired`: which fan-ins fired, in order.
 */
export type CommitOutcome =
  | { ok: true; events: EventEnvelope[]; counters?: number[]; fired?: boolean[] }
  | { ok: false; reason: 'conflict' }
  | QuotaRefusal
  | BoundRefusal;

/**
 * An `sadd` with `max` would have taken its set past that bound: nothing was written. `size`: the set's size before;
 * `added`: the members the refused add would have added (new ones, each once).
 */
export interface BoundRefusal {
  ok: false;
  reason: 'bound';
  key: string;
  size: number;
  added: number;
  max: number;
}

/**
 * The commit would have taken the workspace's stored bytes (documents as JSON plus events kept) past its quota:
 * nothing was written. `used` is the count before the commit, `needed` what the commit adds.
 */
export interface QuotaRefusal {
  ok: false;
  reason: 'quota';
  used: number;
  needed: number;
  limit: number;
}

export interface EventRange {
  /** Exclusive lower bound; omit to read the newest `count` events. */
  after?: string;
  /** Exclusive upper bound (without `after`): the newest `count` events older than it, for paging backwards. */
  before?: string;
  count: number;
}

/** The store was found wiped after this node started (see redis/store-epoch.ts). */
export interface DataLoss {
  /** When this node noticed (epoch ms). */
  since: number;
  message: string;
}

/** The store holds a newer stored format than this node reads (see redis/stored-format.ts). */
export interface FormatConflict {
  /** When this node noticed (epoch ms). */
  since: number;
  /** What the store's record holds (cut to 40 characters). */
  found: string;
  message: string;
}

export type EventListener = (event: EventEnvelope) => void;

/**
 * The one storage interface. State is a set of JSON documents per workspace, each with a version, plus sets, hashes
 * and counters changed only by commutative operations. A call reads what it needs, computes the change in pure
 * code, and commits it with a compare-and-set on every document version it read. The commit also appends the call's
 * events to the workspace log and publishes them, in one atomic step.
 */
export interface Store {
  readonly kind: 'memory' | 'redis' | 'file';
  /** Where rate limits and connection leases keep their counts (shared by every node on Redis). */
  readonly limits: LimitBackend;
  /** Who is connected where, shared by the nodes of a deployment (presence, stalls, the workspace index). */
  readonly presence: PresenceBackend;
  /** The revoked-token list of secret mode, shared by every node on Redis (checked every `checkMs`). */
  revocations(options: { checkMs: number; log: Logger }): Revocations;
  load(workspace: string, keys: readonly string[]): Promise<Reads.LoadedDoc[]>;
  /**
   * `load`, whole hashes (as loadCollections reads them) and ranges of sorted sets in one atomic read: one round trip
   * on Redis, for a call that needs a plan's step briefs or its steps by status with its documents.
   */
  loadWith(workspace: string, keys: readonly string[], alongside: Reads.AlongsideRead): Promise<Reads.LoadedAlongside>;
  /** Sets, hashes and counters in one round trip (unversioned: only commutative operations change them). */
  loadCollections(workspace: string, read: Reads.CollectionRead): Promise<Reads.LoadedCollections>;
  commit(workspace: string, commit: Commit): Promise<CommitOutcome>;
  /** The remembered answer of an applied request, if any, with the call it is bound to. */
  requestAnswer(workspace: string, agentId: string, requestId: string): Promise<Remembered | undefined>;
  /** Events of the workspace log in order: after a cursor, or the newest `count`. */
  readEvents(workspace: string, range: EventRange): Promise<EventEnvelope[]>;
  /**
   * The newest event id the workspace log no longer keeps (its retention, or the memory store's event budget, trimmed
   * it and everything before it); undefined while nothing was trimmed. A reader resuming after an older id missed
   * events: it is told so rather than left to read on as if nothing were missing.
   */
  trimmedThrough(workspace: string): Promise<string | undefined>;
  /**
   * Pushes the workspace's events committed from now on, by any node, to `listener`: in log order, each once, none
   * missed across faults (the store reads its log back after any gap). "From now on" is the moment of the call:
   * whatever the caller reads or commits afterwards is after it. The returned function stops it; a node only hears
   * about the workspaces it watches.
   */
  watch(workspace: string, listener: EventListener): () => void;
  ping(): Promise<void>;
  /** Set once the store was found wiped since this node started; absent for stores that cannot lose data alone. */
  dataLoss?(): DataLoss | undefined;
  /** Set once the store was found written by a newer build than this node; absent for stores without a record. */
  formatConflict?(): FormatConflict | undefined;
  /**
   * Whether the store accepts writes: `out_of_memory` (with when it began) while Redis refuses them at maxmemory.
   * Redis reads `INFO memory` for it (readiness asks on each probe); the other stores always accept.
   */
  writeHealth(): Promise<{ ok: true } | { ok: false; reason: 'out_of_memory'; since: number }>;
  close(): Promise<void>;
}
