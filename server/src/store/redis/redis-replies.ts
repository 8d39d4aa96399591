import type { EventEnvelope } from '@planhub/shared';
import { corruptDocument } from '../documents/define.ts';
import { parseStoredJson } from '../parsed-json.ts';
import type { LoadedDoc } from '../store.ts';

/** What the store's Redis replies mean: load.lua's documents and hashes, and the workspace log's stream entries. */

export type StreamEntry = [id: string, fields: string[]];

/** A document's JSON; text that is not JSON is a corrupt document, named so an operator can find it. */
const parseStored = (docKey: string, json: string): unknown => {
  try {
    return parseStoredJson(json);
  } catch {
    throw corruptDocument(docKey, 'not JSON');
  }
};

export const toEnvelope = ([id, fields]: StreamEntry): EventEnvelope => ({
  event_id: id,
  ...(JSON.parse(fields[fields.indexOf('e') + 1] ?? '{}') as Omit<EventEnvelope, 'event_id'>),
});

/** load.lua's documents: version and JSON of each, in the order asked. */
export const docsOf = (docKeys: readonly string[], flat: ReadonlyArray<string | null | string[]>): LoadedDoc[] =>
  docKeys.map((key, i): LoadedDoc => {
    const version = flat[2 * i];
    const json = flat[2 * i + 1];
    return typeof version !== 'string' || typeof json !== 'string'
      ? { value: undefined, version: 0 }
      : { value: parseStored(key, json), version: Number(version) };
  });

/** A hash as load.lua returns it (HGETALL's field, value, …). */
export const hashOf = (reply: string | null | string[] | undefined): Record<string, string> => {
  const hash: Record<string, string> = {};
  if (!Array.isArray(reply)) return hash;
  for (let i = 0; i + 1 < reply.length; i += 2) hash[reply[i] as string] = reply[i + 1] as string;
  return hash;
};
