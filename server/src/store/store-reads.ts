import type { Remembered } from './request-fingerprint.ts';

/**
 * What a store's reads take and give: documents with their versions, collections (sets, hashes, counters), ranges of
 * sorted sets, and documents followed from the fields of a hash, read together in one snapshot (Store in store.ts).
 */

/** A document as read: its value and version. */
export interface LoadedDoc {
  value: unknown;
  /** 0 when the document does not exist. */
  version: number;
}

export interface CollectionRead {
  sets?: readonly string[];
  hashes?: readonly string[];
  counters?: readonly string[];
}

export interface LoadedCollections {
  sets: string[][];
  hashes: Record<string, string>[];
  counters: number[];
}

/** Members of a sorted set scored from `min` to `max` (inclusive): how many, and the first `limit` of them. */
export interface ScoreRange {
  min: number;
  max: number;
  limit: number;
}

/** Ranges of one sorted set, each member with its field in the hash `values` when one is named. */
export interface RangeRead {
  key: string;
  ranges: readonly ScoreRange[];
  values?: string;
}

/** One range as read: its size, and its first members by score (ties by member), lowest first. */
export interface RangeSlice {
  count: number;
  first: Array<{ member: string; score: number; value: string | undefined }>;
}

/**
 * A document key built from the field of a hash: literal text, and the index of one of the strings in the field's
 * JSON array (`['plan:', 1]` names `plan:<second string>`).
 */
export type KeyPattern = ReadonlyArray<string | number>;

/**
 * Documents named by the fields of a whole hash read in the same load, each field a JSON array of strings: who waits
 * on a step, and with them their plans, in the round trip that reads who they are. A field that is no such array, or
 * has no string at an index a pattern names, names nothing.
 */
export interface FollowRead {
  /** One of the load's `hashes`. */
  hash: string;
  keys: readonly KeyPattern[];
}

/** A document read by a FollowRead, under its key. */
export interface FollowedDoc {
  key: string;
  doc: LoadedDoc;
}

/** What `loadWith` reads beside the documents. */
export interface AlongsideRead {
  hashes?: readonly string[];
  ranges?: readonly RangeRead[];
  /** Documents named by the fields of those hashes, read in the same snapshot. */
  follow?: readonly FollowRead[];
  /** A request whose remembered answer (as `requestAnswer` gives it) is read in the same round trip. */
  request?: { agent_id: string; request_id: string };
}

export interface LoadedAlongside {
  docs: LoadedDoc[];
  hashes: Record<string, string>[];
  /** Per RangeRead, one slice per range, in order. */
  ranges: RangeSlice[][];
  /** With `request`: its remembered answer (undefined when it has none). */
  request?: Remembered | undefined;
  /** With `follow`: every document its hashes' fields named, per FollowRead in order, each field's keys in order. */
  followed?: FollowedDoc[];
}
