import type { NewEvent } from '@planhub/shared';
import type { DocumentKind } from './documents/define.ts';
import { type CallBudget, withinBudget } from './call-budget.ts';
import { DrawnValues } from './drawn-values.ts';
import { fillAnswerValue } from './fill.ts';
import { RangeReads } from './range-reads.ts';
import type { Remembered } from './request-fingerprint.ts';
import type {
  CollectionRead,
  FanIn,
  FollowRead,
  LoadedAlongside,
  LoadedDoc,
  RangeRead,
  RangeSlice,
  Store,
  StoreOp,
} from './store.ts';

/** What one `Tx.prefetch` reads together. */
export interface PrefetchReads {
  /** Documents the commit checks, as `getMany` reads them. */
  checked?: readonly string[] | undefined;
  /** Documents the commit checks only if the call writes them, as `getUnchecked` reads them. */
  unchecked?: readonly string[] | undefined;
  /** Whole hashes, as `hash` reads them. */
  hashes?: readonly string[] | undefined;
  /** Sorted-set ranges, as `range` reads them. */
  ranges?: readonly RangeRead[] | undefined;
  /** With hashes read here, the documents their fields name, for a later `peek`. */
  follow?: readonly FollowRead[] | undefined;
}

/**
 * The view of the store one attempt of a call works on: reads are cached with their versions, writes and events
 * are buffered, and nothing reaches the store until the commit. A failed call therefore changes nothing.
 */
export class Tx {
  private readonly loaded = new Map<string, { value: unknown; version: number }>();
  /** Read without a check at the commit (until the call writes the key or reads it through getMany). */
  private readonly unchecked = new Map<string, { value: unknown; version: number }>();
  private readonly written = new Map<string, unknown>();
  readonly events: NewEvent[] = [];
  private readonly ops: StoreOp[] = [];
  private readonly fanIns: FanIn[] = [];
  /** Whole hashes read alongside documents (a plan's step briefs), by key: one snapshot per attempt. */
  private readonly hashes = new Map<string, Promise<Record<string, string>>>();
  /** Ranges of sorted sets read alongside documents (a plan's steps by status), by sorted set: one per attempt. */
  private readonly ranges = new RangeReads();
  /** Each document checked once per attempt: a call reads its plan and agent index several times. */
  private readonly decoded = new Map<string, { raw: unknown; kind: object; value: unknown }>();
  /** Documents a prefetch's follow reads named, for `peek` (never checked, never seen by other reads). */
  private readonly followed = new Map<string, unknown>();
  /** The call's remembered answer, once asked for: with the attempt's first documents, or on its own. */
  private answer: Promise<Remembered | undefined> | undefined;

  constructor(
    private readonly store: Store,
    readonly workspace: string,
    /** The call's store budget: every read this attempt makes waits at most what is left of it. */
    private readonly budget?: CallBudget,
    /** The call's request, whose remembered answer the attempt's first documents are read with. */
    private readonly request?: { agent_id: string; request_id: string },
    /** The values the call drew from counters, kept across its attempts (see `draw`). */
    private readonly drawn: DrawnValues = new DrawnValues(store, workspace),
  ) {}

  /** The next value of `counter`, drawn once for this call (drawn-values.ts). */
  draw(counter: string): Promise<number> {
    return this.drawn.draw(counter, this.budget, () => this.rememberedAnswer());
  }

  /**
   * The remembered answer of the call's request (undefined when it has none): read with the attempt's first
   * documents, or on its own when the attempt read none.
   */
  rememberedAnswer(): Promise<Remembered | undefined> {
    const { request } = this;
    if (!request) return Promise.resolve(undefined);
    return (this.answer ??= withinBudget(this.budget, () =>
      this.store.requestAnswer(this.workspace, request.agent_id, request.request_id),
    ));
  }

  /** Loads documents in one round trip; later reads of the same key see this transaction's own writes. */
  async getMany(keys: readonly string[]): Promise<unknown[]> {
    await this.prefetch({ checked: keys });
    return keys.map((k) => (this.written.has(k) ? this.written.get(k) : this.loaded.get(k)?.value));
  }

  /**
   * Loads everything `reads` names in one round trip; values come later from the cache. A key already read
   * unchecked becomes checked, at the version it was read.
   */
  async prefetch(reads: PrefetchReads): Promise<void> {
    const { checked = [], unchecked = [], hashes = [], ranges = [], follow = [] } = reads;
    for (const key of checked) this.promote(key);
    const cached = (k: string) => this.loaded.has(k) || this.written.has(k) || this.unchecked.has(k);
    const missing = [...new Set([...checked, ...unchecked].filter((k) => !cached(k)))];
    const newHashes = [...new Set(hashes.filter((k) => !this.hashes.has(k)))];
    const newRanges = ranges.filter((r) => !this.ranges.get(r));
    if (missing.length === 0 && newHashes.length === 0 && newRanges.length === 0) return;
    let docs: LoadedDoc[];
    // The first read of an attempt with a request also reads its remembered answer: one round trip fewer.
    const request = this.answer === undefined ? this.request : undefined;
    if (newHashes.length === 0 && newRanges.length === 0 && request === undefined)
      docs = await withinBudget(this.budget, () => this.store.load(this.workspace, missing));
    else {
      // A follow read goes with its hash's first read: the documents it names are of that snapshot.
      const newFollows = follow.filter((f) => newHashes.includes(f.hash));
      const all = withinBudget(this.budget, () =>
        this.store.loadWith(this.workspace, missing, {
          hashes: newHashes,
          ranges: newRanges,
          ...(request ? { request } : {}),
          ...(newFollows.length > 0 ? { follow: newFollows } : {}),
        }),
      );
      const later = <T>(pick: (r: LoadedAlongside) => T): Promise<T> => {
        const read = all.then(pick);
        read.catch(() => undefined);
        return read;
      };
      if (request) this.answer = later((r) => r.request);
      newHashes.forEach((key, i) =>
        this.hashes.set(
          key,
          later((r) => r.hashes[i] ?? {}),
        ),
      );
      newRanges.forEach((read, i) =>
        this.ranges.set(
          read,
          later((r) => r.ranges[i] ?? []),
        ),
      );
      const loaded = await all;
      docs = loaded.docs;
      for (const { key, doc } of loaded.followed ?? []) if (!this.followed.has(key)) this.followed.set(key, doc.value);
    }
    const wanted = new Set(checked);
    missing.forEach((key, i) => {
      const into = wanted.has(key) ? this.loaded : this.unchecked;
      // Two reads of one key in flight at once: the first answer stays. The body may already hold its value, and
      // a later version would let the commit check the newer one against a value read from the older.
      if (!into.has(key)) into.set(key, docs[i] ?? { value: undefined, version: 0 });
    });
  }

  /**
   * Ranges of a sorted set (unversioned like a hash: reading adds no check), read once per attempt: from the prefetch
   * that named them, or on their own.
   */
  async range(read: RangeRead): Promise<RangeSlice[]> {
    const known = this.ranges.get(read);
    if (known) return known;
    await this.prefetch({ ranges: [read] });
    return this.ranges.get(read) ?? [];
  }

  /**
   * A whole hash (unversioned, so reading it adds no check), read once per attempt: from the prefetch that named it,
   * or on its own.
   */
  hash(key: string): Promise<Record<string, string>> {
    let read = this.hashes.get(key);
    if (!read) {
      read = this.collections({ hashes: [key] }).then(({ hashes }) => hashes[0] ?? {});
      read.catch(() => undefined);
      this.hashes.set(key, read);
    }
    return read;
  }

  /**
   * Reads documents, cached like getMany, that the commit does not check unless the call writes them: for siblings
   * the call only looks at (a plan's other steps), so independent changes of one plan never conflict.
   */
  async getUnchecked(keys: readonly string[]): Promise<unknown[]> {
    await this.prefetch({ unchecked: keys });
    return keys.map((k) =>
      this.written.has(k) ? this.written.get(k) : (this.loaded.get(k) ?? this.unchecked.get(k))?.value,
    );
  }

  /** The version this attempt read `key` at (0: missing), checked or not; undefined when it has not read it. */
  versionRead(key: string): number | undefined {
    return (this.loaded.get(key) ?? this.unchecked.get(key))?.version;
  }

  private promote(key: string): void {
    const doc = this.unchecked.get(key);
    if (doc === undefined) return;
    this.unchecked.delete(key);
    this.loaded.set(key, doc);
  }

  /**
   * Reads documents without checking them at the commit: for what the commit only hands to a fan-in, which the store
   * applies whatever their version (never for a document the commit writes).
   */
  async peek(keys: readonly string[]): Promise<unknown[]> {
    // A prefetch that followed who waits read them already, in its snapshot: no round trip of its own.
    if (keys.every((k) => this.followed.has(k))) return keys.map((k) => this.followed.get(k));
    return (await this.peekVersions(keys)).map((d) => d.value);
  }

  /** As peek, with the versions read: for a fan-in whose own reads name them (it applies only if they hold). */
  peekVersions(keys: readonly string[]): Promise<LoadedDoc[]> {
    return withinBudget(this.budget, () => this.store.load(this.workspace, keys));
  }

  /** One declared document, checked against its declaration (INTERNAL naming the key when it is corrupt). */
  async read<T, A extends unknown[]>(kind: DocumentKind<T, A>, ...args: A): Promise<T | undefined> {
    const key = kind.key(...args);
    const [raw] = await this.getMany([key]);
    return this.decode(kind, key, raw);
  }

  /** Several documents of one kind in one round trip, checked like `read`. */
  async readMany<T, A extends unknown[]>(kind: DocumentKind<T, A>, args: readonly A[]): Promise<Array<T | undefined>> {
    const keys = args.map((a) => kind.key(...a));
    const raws = await this.getMany(keys);
    return raws.map((raw, i) => this.decode(kind, keys[i] ?? '', raw));
  }

  /** A document read again as the same kind, unchanged and not written since, is not checked again. */
  private decode<T, A extends unknown[]>(kind: DocumentKind<T, A>, key: string, raw: unknown): T | undefined {
    const seen = this.decoded.get(key);
    if (seen && seen.raw === raw && seen.kind === kind) return seen.value as T | undefined;
    const value = kind.decode(key, raw);
    if (typeof raw === 'object' && raw !== null) this.decoded.set(key, { raw, kind, value });
    return value;
  }

  /** Sets, hashes and counters (unversioned: only commutative operations change them, so reading adds no check). */
  async collections(read: CollectionRead) {
    return withinBudget(this.budget, () => this.store.loadCollections(this.workspace, read));
  }

  op(...ops: StoreOp[]): void {
    this.ops.push(...ops);
  }

  fanIn(fanIn: FanIn): void {
    this.fanIns.push(fanIn);
  }

  /** A write is checked against the version the call read (a key read unchecked included). */
  put(key: string, value: unknown): void {
    this.promote(key);
    this.written.set(key, value);
    this.decoded.delete(key);
  }

  delete(key: string): void {
    this.promote(key);
    this.written.set(key, null);
    this.decoded.delete(key);
  }

  emit(...events: NewEvent[]): void {
    this.events.push(...events);
  }

  /** The call's answer as the committed fan-ins complete it (see FanIn.answer). */
  completeAnswer<R>(result: R, fired: readonly boolean[] | undefined): R {
    return fillAnswerValue(result, this.fanIns, fired ?? []);
  }

  /** The sets this attempt changes so far: by operations (add, remove, delete), and as its fan-ins' sets. */
  changedSets(): { byOps: ReadonlySet<string>; byFanIns: ReadonlySet<string> } {
    const byOps = new Set<string>();
    for (const op of this.ops)
      if (op.op === 'sadd' || op.op === 'srem' || (op.op === 'del' && op.kind === 'set')) byOps.add(op.key);
    return { byOps, byFanIns: new Set(this.fanIns.map((f) => f.set)) };
  }

  get hasChanges(): boolean {
    return this.written.size > 0 || this.events.length > 0 || this.ops.length > 0 || this.fanIns.length > 0;
  }

  /** Every document this attempt read must be unchanged; every key it writes is checked too (blind writes). */
  toCommit() {
    const reads = [...this.loaded].map(([key, doc]) => ({ key, version: doc.version }));
    for (const key of this.written.keys()) if (!this.loaded.has(key)) reads.push({ key, version: 0 });
    const writes = [...this.written].map(([key, value]) => ({ key, value }));
    const fanInSets = new Set(this.fanIns.map((f) => f.set));
    // A fan-in's "did this empty the set" is decided before the commit applies, so nothing else may change its set.
    if (this.ops.some((op) => op.op !== 'hset' && op.op !== 'hdel' && op.op !== 'incr' && fanInSets.has(op.key)))
      throw new Error('A commit may not change the set of one of its own fan-ins with another operation.');
    return { reads, writes, events: this.events, ops: this.ops, fanIns: this.fanIns };
  }
}
