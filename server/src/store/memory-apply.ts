import type { NewEvent } from '@planhub/shared';
import { applyFill, fillEvent, fillText } from './fill.ts';
import { NO_VALUE } from './bumped-doc.ts';
import { docJsonBytes, type Workspace } from './memory-workspace.ts';
import { SortedMembers } from './sorted-members.ts';
import type { DocWrite, FanIn, StoreOp } from './store.ts';
import { textBytes } from '../limits/text-bytes.ts';
import {
  collectionBytes,
  counterBytes,
  fieldBytes,
  keyBytes,
  memberBytes,
  scoredBytes,
} from './memory-collection-bytes.ts';

/** What a memory-store commit changes in a workspace: documents, commutative operations, fired fan-ins. */

/** Writes (or, for `null`, deletes) documents, keeping the workspace's document bytes. */
export const writeDocs = (w: Workspace, writes: readonly DocWrite[], json: (w: DocWrite) => string) => {
  for (const doc of writes) {
    w.docBytes -= docJsonBytes(w, doc.key);
    if (doc.value === null) w.docs.delete(doc.key);
    else {
      const text = json(doc);
      w.docs.set(doc.key, { version: (w.docs.get(doc.key)?.version ?? 0) + 1, json: text });
      w.docBytes += textBytes(text);
    }
  }
};

/** The collection at `key`, made (and its key counted) when it is missing. */
const collection = <C>(w: Workspace, map: Map<string, C>, key: string, make: () => C): C => {
  let found = map.get(key);
  if (found === undefined) {
    map.set(key, (found = make()));
    w.collectionBytes += keyBytes(key);
  }
  return found;
};

/** Forgets the collection at `key` once it is empty, as Redis deletes an emptied key. */
const dropIfEmpty = (w: Workspace, map: Map<string, { size: number }>, key: string) => {
  if (map.get(key)?.size !== 0) return;
  map.delete(key);
  w.collectionBytes -= keyBytes(key);
};

/** Applies operations, keeping the workspace's collection bytes exact (each change counted as it is made). */
export const applyOps = (w: Workspace, ops: readonly StoreOp[], counters: number[]) => {
  for (const op of ops) {
    if (op.op === 'sadd') {
      const set = collection(w, w.sets, op.key, () => new Set<string>());
      for (const m of op.members)
        if (!set.has(m)) {
          set.add(m);
          w.collectionBytes += memberBytes(m);
        }
    } else if (op.op === 'srem') {
      for (const m of op.members) if (w.sets.get(op.key)?.delete(m)) w.collectionBytes -= memberBytes(m);
      dropIfEmpty(w, w.sets, op.key);
    } else if (op.op === 'hset') {
      const hash = collection(w, w.hashes, op.key, () => new Map<string, string>());
      for (const [f, v] of Object.entries(op.fields)) {
        const old = hash.get(f);
        if (old !== undefined && op.onlyNew) continue;
        hash.set(f, v);
        w.collectionBytes += fieldBytes(f, v) - (old === undefined ? 0 : fieldBytes(f, old));
      }
    } else if (op.op === 'hdel') {
      const hash = w.hashes.get(op.key);
      for (const f of op.fields) {
        const old = hash?.get(f);
        if (old === undefined) continue;
        hash?.delete(f);
        w.collectionBytes -= fieldBytes(f, old);
      }
      dropIfEmpty(w, w.hashes, op.key);
    } else if (op.op === 'incr') {
      if (!w.counters.has(op.key)) w.collectionBytes += counterBytes(op.key);
      const value = (w.counters.get(op.key) ?? 0) + op.by;
      w.counters.set(op.key, value);
      counters.push(value);
    } else if (op.op === 'zadd') {
      const zset = collection(w, w.zsets, op.key, () => new SortedMembers());
      for (const [m, score] of Object.entries(op.members)) {
        const size = zset.size;
        zset.add(m, score);
        if (zset.size > size) w.collectionBytes += scoredBytes(m);
      }
    } else if (op.op === 'zrem') {
      const zset = w.zsets.get(op.key);
      for (const m of op.members) {
        const size = zset?.size ?? 0;
        zset?.remove(m);
        if ((zset?.size ?? 0) < size) w.collectionBytes -= scoredBytes(m);
      }
      dropIfEmpty(w, w.zsets, op.key);
    } else if (op.op === 'bump') {
      const doc = w.docs.get(op.key);
      w.docs.set(op.key, { version: (doc?.version ?? 0) + 1, json: doc?.json ?? NO_VALUE });
    } else {
      w.collectionBytes -= collectionBytes(w, op.kind, op.key);
      if (op.kind === 'set') w.sets.delete(op.key);
      else if (op.kind === 'hash') w.hashes.delete(op.key);
      else if (op.kind === 'zset') w.zsets.delete(op.key);
      else w.counters.delete(op.key);
    }
  }
};

/** A fired fan-in's writes and events, with its fills applied to their JSON text (events within their caps). */
export const fireFanIn = (w: Workspace, fanIn: FanIn, counters: number[]): NewEvent[] => {
  const filled = (json: string) =>
    fanIn.then.fills.reduce((text, f) => applyFill(text, f.token, fillText(w.hashes.get(f.hash), f.as)), json);
  const events = fanIn.then.events.map(
    (e) => JSON.parse(fillEvent(JSON.stringify(e), fanIn.then.fills, (hash) => w.hashes.get(hash))) as NewEvent,
  );
  writeDocs(w, fanIn.then.writes, (doc) => filled(JSON.stringify(doc.value)));
  applyOps(w, fanIn.then.ops, counters);
  return events;
};
