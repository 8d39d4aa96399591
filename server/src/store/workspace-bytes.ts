import type { NewEvent } from '@planhub/shared';
import { serializedBytes } from '@planhub/shared';
import { eventBytes } from '../events/event-json.ts';
import type { Commit, DocWrite } from './store.ts';

// A workspace's stored bytes, the workspaceBytes quota's measure, are every document's JSON plus every event kept,
// in UTF-8 bytes (limits/text-bytes.ts). The Redis script counts the same text.

/**
 * What a commit would add to the workspace's stored bytes (negative when it frees more than it writes): new
 * documents minus the ones they replace, plus its events; fan-ins that will fire count before their fills.
 */
export const commitBytes = (
  commit: Commit,
  fires: readonly boolean[],
  stored: (key: string) => number,
  /** The bytes of a write when the caller has its JSON already (a document is stringified once per commit). */
  written: (doc: DocWrite) => number = (d) => serializedBytes(d.value),
): number => {
  const writes = (list: readonly DocWrite[]) =>
    list.reduce((sum, d) => sum + (d.value === null ? 0 : written(d)) - stored(d.key), 0);
  const events = (list: readonly NewEvent[]) => list.reduce((sum, e) => sum + eventBytes(e), 0);
  return (commit.fanIns ?? []).reduce(
    (sum, f, i) => (fires[i] ? sum + writes(f.then.writes) + events(f.then.events) : sum),
    writes(commit.writes) + events(commit.events),
  );
};

/**
 * Each written document's JSON, made once per commit: the quota counts it and the store keeps it. A value JSON
 * cannot hold (a BigInt) is left out, so the quota counts it as infinitely large, as `serializedBytes` does.
 */
export const writeTexts = (writes: readonly DocWrite[]): Map<DocWrite, string> => {
  const texts = new Map<DocWrite, string>();
  for (const doc of writes) {
    if (doc.value === null) continue;
    try {
      texts.set(doc, JSON.stringify(doc.value));
    } catch {
      // Left out: see above.
    }
  }
  return texts;
};
