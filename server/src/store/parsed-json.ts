/**
 * Stored documents parsed once per node while their text stays the same. A long plan's header (its step order) is
 * read by every change of one of its steps and by every fan-in into it, unchanged between structural changes:
 * parsing it again each time cost a fan-in into 1,000-step plans about a sixth of its CPU. Keyed by the text itself,
 * so equal text gives the equal value whatever key, version or workspace it came from, and nothing can go stale.
 *
 * Values handed out are deeply frozen, since every reader shares them: a caller that changed one in place would
 * change it for all. Readers decode stored values into new objects (documents/define.ts), so none needs to.
 */
const MIN_LENGTH = 4096;
/** Text kept, in UTF-16 code units; the parsed values add about as much again. */
const MAX_LENGTH = 8 * 1024 * 1024;

const cache = new Map<string, unknown>();
let kept = 0;

const deepFreeze = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
};

/** JSON.parse for stored document text (throws as JSON.parse does); shared and frozen when the text is long. */
export const parseStoredJson = (json: string): unknown => {
  if (json.length < MIN_LENGTH) return JSON.parse(json) as unknown;
  const hit = cache.get(json);
  if (hit !== undefined) {
    // Least recently used first: a hit moves to the end.
    cache.delete(json);
    cache.set(json, hit);
    return hit;
  }
  const value = deepFreeze(JSON.parse(json));
  cache.set(json, value);
  kept += json.length;
  for (const [text] of cache) {
    if (kept <= MAX_LENGTH) break;
    cache.delete(text);
    kept -= text.length;
  }
  return value;
};
