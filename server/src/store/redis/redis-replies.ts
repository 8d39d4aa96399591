import { corruptDocument } from '../documents/define.ts';
import { isVersionText, shortName } from '../corrupt-stored.ts';
import { followedHash } from '../follow-read.ts';
import { parseStoredDocument } from '../parsed-json.ts';
import type { FollowedDoc, FollowRead, LoadedDoc, RangeRead, RangeSlice, ScoreRange } from '../store.ts';

/** What the store's Redis replies mean: load.lua's documents, hashes and ranges, and the workspace log's stream entries. */

export type StreamEntry = [id: string, fields: string[]];

/** load.lua's documents: version and JSON of each, in the order asked. */
/** One entry of load.lua's reply: a document's version or JSON, a hash, or one range of a sorted set. */
export type LoadReplyEntry = string | null | Array<string | number | null>;

export const docsOf = (workspace: string, docKeys: readonly string[], flat: readonly LoadReplyEntry[]): LoadedDoc[] =>
  docKeys.map((key, i): LoadedDoc => {
    const version = flat[2 * i];
    const json = flat[2 * i + 1];
    if (typeof version !== 'string') {
      // JSON without a version would read as missing, and the next write would replace it.
      if (typeof json === 'string') throw corruptDocument(key, 'it has JSON but no version');
      return { value: undefined, version: 0 };
    }
    // Not a number, every commit that read it would conflict with it forever (UNAVAILABLE, "too busy").
    if (!isVersionText(version))
      throw corruptDocument(key, `its version ${JSON.stringify(shortName(version))} is not a number`);
    // A document only bumped has a version and no JSON (store.ts, `bump`).
    if (typeof json !== 'string') return { value: undefined, version: Number(version) };
    return { value: parseStoredDocument(key, json, `${workspace}\u0000${key}@${version}`), version: Number(version) };
  });

/** A hash as load.lua returns it (HGETALL's field, value, …). */
export const hashOf = (reply: LoadReplyEntry | undefined): Record<string, string> => {
  const hash: Record<string, string> = {};
  if (!Array.isArray(reply)) return hash;
  for (let i = 0; i + 1 < reply.length; i += 2) hash[reply[i] as string] = reply[i + 1] as string;
  return hash;
};

/** load.lua's arguments for range reads: per read whether it takes values and how many ranges, then each range. */
export const rangeArgs = (reads: readonly RangeRead[]): string[] =>
  reads.flatMap((r) => [r.values === undefined ? '0' : '1', ...rangeTexts(r.ranges)]);

/**
 * Formatted once per ranges array: a step change reads the same six ranges of every plan, and formatting their
 * scores (beyond 2^31, formatted on V8's slow path) was about 2 % of a node's CPU.
 */
const formatted = new WeakMap<readonly ScoreRange[], readonly string[]>();
const rangeTexts = (ranges: readonly ScoreRange[]): readonly string[] => {
  let texts = formatted.get(ranges);
  if (!texts) {
    texts = [
      String(ranges.length),
      ...ranges.flatMap((range) => [String(range.min), String(range.max), String(range.limit)]),
    ];
    formatted.set(ranges, texts);
  }
  return texts;
};

/**
 * load.lua's arguments for follow reads (none when there are none): how many, the documents' key prefix, then per
 * read its hash's position among `hashes` and its patterns as JSON.
 */
export const followArgs = (follows: readonly FollowRead[], hashes: readonly string[], docPrefix: string): string[] => {
  if (follows.length === 0) return [];
  const args = [String(follows.length), docPrefix];
  for (const f of follows)
    args.push(String(followedHash(f, hashes) + 1), String(f.keys.length), ...f.keys.map((p) => JSON.stringify(p)));
  return args;
};

const textOrNull = (x: unknown): string | null => (typeof x === 'string' ? x : null);

/** load.lua's follow reads: per read one array { key, version, json, ... }, flattened in order. */
export const followedOf = (workspace: string, replies: readonly LoadReplyEntry[]): FollowedDoc[] =>
  replies.flatMap((reply) => {
    const flat = Array.isArray(reply) ? reply : [];
    const found: FollowedDoc[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      const key = String(flat[i]);
      const [doc] = docsOf(workspace, [key], [textOrNull(flat[i + 1]), textOrNull(flat[i + 2])]);
      if (doc) found.push({ key, doc });
    }
    return found;
  });

/** load.lua's ranges, one array per range in the order asked: { count, member, score, value, ... }. */
export const slicesOf = (reads: readonly RangeRead[], replies: readonly LoadReplyEntry[]): RangeSlice[][] => {
  let at = 0;
  return reads.map((read) =>
    read.ranges.map((): RangeSlice => {
      const reply = replies[at++];
      const flat = Array.isArray(reply) ? reply : [];
      const first: RangeSlice['first'] = [];
      for (let i = 1; i + 2 < flat.length; i += 3)
        first.push({
          member: String(flat[i]),
          score: Number(flat[i + 1]),
          value: typeof flat[i + 2] === 'string' ? (flat[i + 2] as string) : undefined,
        });
      return { count: Number(flat[0] ?? 0), first };
    }),
  );
};
