import type { PlanHubError } from '@planhub/shared';
import { corruptDocument } from '../documents/define.ts';
import { corruptRecord } from '../corrupt-stored.ts';
import { KEY_TYPES } from './redis-keys.ts';

/**
 * A key of the wrong Redis type (a string where a document's hash belongs, say) fails a script with WRONGTYPE, which
 * names no key. Only then, off the normal path, are the script's keys asked their types, so the answer names the
 * one at fault as every other corrupt record is named; a call that succeeds pays nothing for it.
 */

interface TypeClient {
  type(key: string): Promise<string>;
}

/** The Redis type a key must have, from the part after the workspace's hash tag. */
const expectedType = (name: string): string | undefined => KEY_TYPES[name.split(':', 1)[0]!];

const isWrongType = (err: unknown) => err instanceof Error && /\bWRONGTYPE\b/.test(err.message);

/**
 * `err` itself, or, when it is a WRONGTYPE reply, the INTERNAL naming the first of `keys` whose type is wrong
 * (err again when none is found: it changed meanwhile, or the script's fault is elsewhere).
 */
export const nameWrongType = async (err: unknown, client: TypeClient, keys: readonly string[]): Promise<unknown> => {
  if (!isWrongType(err)) return err;
  for (const key of keys) {
    const at = key.indexOf('}:');
    if (at < 0) continue;
    const name = key.slice(at + 2);
    const expected = expectedType(name);
    if (expected === undefined) continue;
    const actual = await client.type(key).catch(() => 'none');
    if (actual === 'none' || actual === expected) continue;
    const detail = `a Redis ${actual}, not a ${expected}`;
    const found: PlanHubError = name.startsWith('doc:')
      ? corruptDocument(name.slice(4), detail)
      : corruptRecord(name.startsWith('ctr:') || name === 'bytes' ? 'counter' : 'key', name, detail);
    return found;
  }
  return err;
};
