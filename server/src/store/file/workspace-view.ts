import { SortedMembers } from '../sorted-members.ts';
import { entryKey } from './file-keys.ts';
import { decodeDoc, encodeDoc, parseRecord, readMeta, type Tables, type WorkspaceMeta } from './file-state.ts';

type Doc = { version: number; json: string };

/** A stored sorted set (its [member, score] pairs in order), or undefined when there is none. */
export const readSortedMembers = (text: string | undefined, key: string): SortedMembers | undefined =>
  text === undefined
    ? undefined
    : SortedMembers.from(parseRecord<Array<[string, number]>>(text, 'sorted set', key, 'array'));

/**
 * One commit's view of a workspace inside the engine's write transaction: entries are read once and changed in
 * memory, and nothing reaches the engine until `flush`. The engine does not roll back the writes of a transaction
 * callback that throws, so everything that can throw (JSON, fills, checks) runs before the first write.
 */
export class WorkspaceView {
  private readonly docs = new Map<string, Doc | undefined>();
  private readonly sets = new Map<string, Set<string> | undefined>();
  private readonly hashes = new Map<string, Map<string, string> | undefined>();
  private readonly counters = new Map<string, number | undefined>();
  private readonly zsets = new Map<string, SortedMembers | undefined>();
  private readonly dirty = {
    docs: new Set<string>(),
    sets: new Set<string>(),
    hashes: new Set<string>(),
    zsets: new Set<string>(),
  };
  private readonly dirtyCounters = new Set<string>();
  readonly meta: WorkspaceMeta;

  constructor(
    private readonly tables: Tables,
    readonly workspace: string,
  ) {
    this.meta = readMeta(tables.meta.get(workspace), workspace);
  }

  private key(key: string) {
    return entryKey(this.workspace, key);
  }

  doc(key: string): Doc | undefined {
    if (!this.docs.has(key)) this.docs.set(key, decodeDoc(this.tables.docs.get(this.key(key)), key));
    return this.docs.get(key);
  }

  putDoc(key: string, doc: Doc | undefined): void {
    this.docs.set(key, doc);
    this.dirty.docs.add(key);
  }

  /** The set itself (changed in place by the caller, then `touchSet`), or undefined when it does not exist. */
  set(key: string): Set<string> | undefined {
    if (!this.sets.has(key)) {
      const text = this.tables.sets.get(this.key(key));
      this.sets.set(key, text === undefined ? undefined : new Set(parseRecord<string[]>(text, 'set', key, 'array')));
    }
    return this.sets.get(key);
  }

  putSet(key: string, set: Set<string> | undefined): void {
    this.sets.set(key, set);
    this.dirty.sets.add(key);
  }

  hash(key: string): Map<string, string> | undefined {
    if (!this.hashes.has(key)) {
      const text = this.tables.hashes.get(this.key(key));
      this.hashes.set(
        key,
        text === undefined
          ? undefined
          : new Map(Object.entries(parseRecord<Record<string, string>>(text, 'hash', key, 'object'))),
      );
    }
    return this.hashes.get(key);
  }

  putHash(key: string, hash: Map<string, string> | undefined): void {
    this.hashes.set(key, hash);
    this.dirty.hashes.add(key);
  }

  zset(key: string): SortedMembers | undefined {
    if (!this.zsets.has(key)) this.zsets.set(key, readSortedMembers(this.tables.zsets.get(this.key(key)), key));
    return this.zsets.get(key);
  }

  putZset(key: string, zset: SortedMembers | undefined): void {
    this.zsets.set(key, zset);
    this.dirty.zsets.add(key);
  }

  counter(key: string): number | undefined {
    if (!this.counters.has(key)) {
      const text = this.tables.counters.get(this.key(key));
      this.counters.set(key, text === undefined ? undefined : Number(text));
    }
    return this.counters.get(key);
  }

  putCounter(key: string, value: number | undefined): void {
    this.counters.set(key, value);
    this.dirtyCounters.add(key);
  }

  /** Writes every changed entry and the meta record (inside the caller's transaction). */
  flush(): void {
    const { tables } = this;
    for (const key of this.dirty.docs) {
      const doc = this.docs.get(key);
      if (doc) tables.docs.put(this.key(key), encodeDoc(doc.version, doc.json));
      else tables.docs.remove(this.key(key));
    }
    // An empty set is no set (as in the memory store, which deletes a set its last member leaves).
    for (const key of this.dirty.sets) {
      const set = this.sets.get(key);
      if (set && set.size > 0) tables.sets.put(this.key(key), JSON.stringify([...set]));
      else tables.sets.remove(this.key(key));
    }
    for (const key of this.dirty.hashes) {
      const hash = this.hashes.get(key);
      if (hash && hash.size > 0) tables.hashes.put(this.key(key), JSON.stringify(Object.fromEntries(hash)));
      else tables.hashes.remove(this.key(key));
    }
    for (const key of this.dirty.zsets) {
      const zset = this.zsets.get(key);
      if (zset && zset.size > 0) tables.zsets.put(this.key(key), JSON.stringify(zset.entries()));
      else tables.zsets.remove(this.key(key));
    }
    for (const key of this.dirtyCounters) {
      const value = this.counters.get(key);
      if (value === undefined) tables.counters.remove(this.key(key));
      else tables.counters.put(this.key(key), String(value));
    }
    tables.meta.put(this.workspace, JSON.stringify(this.meta));
  }
}
