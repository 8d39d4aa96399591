/**
 * Stored documents parsed once per node while their text stays the same. A long plan's header (its step order) is
 * read by every change of one of its steps and by every fan-in into it, unchanged between structural changes:
 * parsing it again each time cost a fan-in into 1,000-step plans about a sixth of its CPU.
 *
 * Looked up by where the text was stored (its key and version), and used only when the text is the very same, so
 * nothing can go stale (a wiped store that reuses a key and version with other text just misses). Hashing the
 * text itself to look it up cost about 20 µs for an 11 KB header, nearly half of parsing it again; comparing it
 * with the cached text costs well under 1 µs.
 *
 * Values handed out are deeply frozen, since every reader shares them: a caller that changed one in place would
 * change it for all. Readers decode stored values into new objects (documents/define.ts), so none needs to.
 */
import { deepFreeze } from '../core/deep-freeze.ts';
import { corruptDocument } from './documents/define.ts';

/**
 * Texts shorter than this are parsed each time. A 50-step plan's header (about 800 characters) is read by every
 * step change: kept from 512 on, parsing fell from about 6 % to 3 % of a node's CPU under 50 agents; steps, whose
 * text changes with every report, stay below it.
 */
const MIN_LENGTH = 512;
/** Text kept, in UTF-16 code units; the parsed values add about as much again. */
const MAX_LENGTH = 8 * 1024 * 1024;

const cache = new Map<string, { text: string; value: unknown }>();
let kept = 0;

/**
 * JSON.parse for stored document text (throws as JSON.parse does); shared and frozen when the text is long.
 * `where` names the stored text: its key and version.
 */
export const parseStoredJson = (json: string, where: string): unknown => {
  if (json.length < MIN_LENGTH) return JSON.parse(json) as unknown;
  const hit = cache.get(where);
  if (hit !== undefined) {
    // Least recently used first: a hit moves to the end.
    cache.delete(where);
    cache.set(where, hit);
    if (hit.text === json) return hit.value;
    kept -= hit.text.length;
    cache.delete(where);
  }
  const value = deepFreeze(JSON.parse(json) as unknown);
  cache.set(where, { text: json, value });
  kept += json.length;
  for (const [at, entry] of cache) {
    if (kept <= MAX_LENGTH) break;
    cache.delete(at);
    kept -= entry.text.length;
  }
  return value;
};

/** parseStoredJson for document `docKey`: text that is not JSON is a corrupt document, named for an operator. */
export const parseStoredDocument = (docKey: string, json: string, where: string): unknown => {
  try {
    return parseStoredJson(json, where);
  } catch {
    throw corruptDocument(docKey, 'not JSON');
  }
};
