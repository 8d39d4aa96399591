import { PlanHubError } from '@planhub/shared';
import type { FollowedDoc, FollowRead, KeyPattern, LoadedDoc } from './store.ts';

/** A hash field as the strings of its JSON array, or undefined when it is no such array. */
const partsOf = (field: string): readonly unknown[] | undefined => {
  try {
    const parsed: unknown = JSON.parse(field);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** The key `pattern` names for a field's parts, or undefined when a part it names is not a string. */
const keyOf = (pattern: KeyPattern, parts: readonly unknown[]): string | undefined => {
  let key = '';
  for (const part of pattern) {
    if (typeof part === 'string') key += part;
    else {
      const value = parts[part];
      if (typeof value !== 'string') return undefined;
      key += value;
    }
  }
  return key;
};

/** The document keys `follow` names by `fields` (its hash's), each field's keys in the order of its patterns. */
export const followedKeys = (follow: FollowRead, fields: readonly string[]): string[] => {
  const keys: string[] = [];
  for (const field of fields) {
    const parts = partsOf(field);
    if (!parts) continue;
    for (const pattern of follow.keys) {
      const key = keyOf(pattern, parts);
      if (key !== undefined) keys.push(key);
    }
  }
  return keys;
};

/**
 * The position of `follow`'s hash among the hashes its load reads. A follow read names one of them; one that does
 * not is a bug of the caller (INTERNAL on every store, never taken for an outage).
 */
export const followedHash = (follow: FollowRead, hashes: readonly string[]): number => {
  const at = hashes.indexOf(follow.hash);
  if (at < 0)
    throw new PlanHubError('INTERNAL', `a follow read names the hash ${follow.hash}, which the load does not read`);
  return at;
};

/**
 * What `follows` name, read by `load` from the snapshot in which the load read `hashes` (`read`, in the same order):
 * for the stores that read in-process (load.lua applies the same rules on Redis).
 */
export const readFollowed = (
  follows: readonly FollowRead[],
  hashes: { keys: readonly string[]; read: readonly Record<string, string>[] },
  load: (keys: readonly string[]) => LoadedDoc[],
): FollowedDoc[] => {
  const keys = follows.flatMap((f) => followedKeys(f, Object.keys(hashes.read[followedHash(f, hashes.keys)] ?? {})));
  if (keys.length === 0) return [];
  const docs = load(keys);
  return keys.map((key, i) => ({ key, doc: docs[i] ?? { value: undefined, version: 0 } }));
};

/**
 * The pattern of the keys `key` builds, its arguments taken from a field's parts at `indexes` (so a key's format
 * stays written once, in keys.ts): `keyPattern(docKeys.plan, 1)` is `['plan:', 1]`.
 */
export const keyPattern = (key: (...parts: string[]) => string, ...indexes: number[]): KeyPattern =>
  key(...indexes.map((i) => `\u0000${i}\u0000`))
    .split('\u0000')
    .flatMap((piece, i): Array<string | number> => (i % 2 === 1 ? [Number(piece)] : piece === '' ? [] : [piece]));
