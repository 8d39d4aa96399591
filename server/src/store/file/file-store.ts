import { mkdirSync, statSync } from 'node:fs';
import { storedValue } from '../bumped-doc.ts';
import { join } from 'node:path';
import type { EventEnvelope } from '@planhub/shared';
import { open, type RootDatabase } from 'lmdb';
import pino, { type Logger } from 'pino';
import { namedOnce } from '../skipped-events.ts';
import { databaseDamage } from './damage-probe.ts';
import { ConfigError } from '../../config-error.ts';
import { createMemoryLimits } from '../limits/memory-limits.ts';
import { createMemoryPresence } from '../presence/memory-presence.ts';
import { decodeRemembered } from '../request-fingerprint.ts';
import { SortedMembers } from '../sorted-members.ts';
import { loadFromSnapshot, settled, type SnapshotReads } from '../snapshot-load.ts';
import type {
  CollectionRead,
  CommitOutcome,
  EventListener,
  LoadedCollections,
  LoadedDoc,
  RangeRead,
  RangeSlice,
  Store,
} from '../store.ts';
import { commitInTransaction } from './file-commit.ts';
import { readEventRange } from './file-event-log.ts';
import { entryKey, requestEntryKey, SEP } from './file-keys.ts';
import { decodeDoc, decodeRequest, parseRecord, readMeta, type Table } from './file-state.ts';
import { openTables } from './file-tables.ts';
import { upgradeKeyFormat } from './key-format.ts';
import { readSortedMembers } from './workspace-view.ts';
import { createFilePresenceJournal } from './file-presence-journal.ts';
import { createFileRevocations } from './file-revocations.ts';
import { takeNodeLock } from './node-lock.ts';
import { createOrderedDelivery } from './ordered-delivery.ts';
import { sweepRequests } from './request-sweep.ts';

export interface FileStoreOptions {
  /** The directory the store keeps its files in (created if missing). */
  path: string;
  /** Events kept per workspace log (oldest trimmed first). */
  eventRetention: number;
  /** Stored bytes (documents + events kept) one workspace may hold; unbounded when absent. */
  workspaceBytes?: number;
  now?: () => number;
  /** Told of a listener that threw (the commit stands); default: rethrown in a microtask, as the memory store does. */
  onListenerError?: (err: unknown, event: EventEnvelope) => void;
  /** How often expired remembered answers are deleted. */
  sweepMs?: number;
  /** Where a log entry readers skip (not an event) is named; silent when absent. */
  log?: Logger;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The directory, created if missing; a regular file there, or one it cannot create, is a config error, not a crash.
 * Messages say `storage_path`; main.ts renames it to the setting the path came from (PLANHUB_STORAGE_PATH or the
 * config file's key), which only the configuration knows.
 */
const storageDir = (path: string): string => {
  let isDirectory: boolean | undefined;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // missing: created below
  }
  if (isDirectory === false)
    throw new ConfigError(
      `storage_path ${path} is a file; the file store keeps a directory of its own there. Point storage_path ` +
        `at a directory (it is created if missing), e.g. .jaato/plans.`,
    );
  if (isDirectory === undefined)
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      throw new ConfigError(`storage_path ${path} cannot be created as a directory: ${messageOf(err)}`);
    }
  return path;
};

/**
 * The durable single-node store: the memory store's semantics on LMDB, an embedded ACID engine. Each commit runs
 * inside one engine write transaction (its checks see every commit before it) and is answered only once that
 * transaction is synced to disk: `overlappingSync` is off, so the commit promise resolves after the fsync.
 * Concurrent commits share one transaction and one fsync (the engine batches what is queued in one event turn).
 * Readers see committed state only, and events reach listeners after they are durable, in log order.
 */
export const createFileStore = (options: FileStoreOptions): Store => {
  const dir = storageDir(options.path);
  let lock: ReturnType<typeof takeNodeLock>;
  try {
    lock = takeNodeLock(dir);
  } catch (err) {
    // A lock file the node may not write (a read-only or foreign-owned directory) is the operator's to fix too.
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`storage_path ${dir} cannot be locked for this node: ${messageOf(err)}`);
  }
  const damage = databaseDamage(join(dir, 'data'));
  if (damage !== undefined) {
    lock.release();
    throw new ConfigError(
      `storage_path ${dir} holds a damaged database: data/data.mdb cannot be used, ${damage}. Restore the directory ` +
        'from a backup copied while the node was stopped, or move it away to start with an empty store.',
    );
  }
  let root: RootDatabase;
  try {
    root = open({ path: join(dir, 'data'), overlappingSync: false, noSync: false, maxDbs: 16 });
  } catch (err) {
    lock.release();
    throw new ConfigError(`storage_path ${dir} could not be opened as a PlanHub file store: ${messageOf(err)}`);
  }
  const { revoked, presence, format, ...tables } = openTables(root);
  try {
    root.transactionSync(() => upgradeKeyFormat([...Object.values(tables), revoked], format));
  } catch (err) {
    lock.release();
    throw new ConfigError(
      `storage_path ${dir} could not be upgraded to this version's key format: ${messageOf(err)} (an engine error ` +
        'such as MDB_PAGE_NOTFOUND means the database is damaged: restore it from a backup)',
    );
  }
  const now = options.now ?? Date.now;
  const settings = { eventRetention: options.eventRetention, workspaceBytes: options.workspaceBytes, now };
  const skipped = namedOnce(options.log ?? pino({ enabled: false }));
  const listeners = new Set<EventListener>();
  const deliver = createOrderedDelivery(listeners, options.onListenerError);
  const write = <T>(fn: () => T): Promise<T> => root.transaction(fn);
  let sweeping: Promise<void> | undefined;
  const sweeper = setInterval(() => {
    sweeping ??= sweepRequests(tables, write, now).finally(() => (sweeping = undefined));
  }, options.sweepMs ?? 60_000);
  sweeper.unref();
  let closed = false;
  /** A read answered as a promise: a closed store, or an engine error, rejects rather than throws. */
  const read = <T>(fn: () => T): Promise<T> => (closed ? Promise.reject(new Error('store closed')) : settled(fn));

  const rememberedAnswer = (workspace: string, request: { agent_id: string; request_id: string }) => {
    const entry = decodeRequest(tables.requests.get(requestEntryKey(workspace, request.agent_id, request.request_id)));
    return entry && entry.expires > now() ? decodeRemembered(entry.text, request) : undefined;
  };
  const loadDocs = (workspace: string, keys: readonly string[]) =>
    keys.map((key): LoadedDoc => {
      const doc = decodeDoc(tables.docs.get(entryKey(workspace, key)), key);
      if (!doc) return { value: undefined, version: 0 };
      return { value: storedValue(key, doc.json, `${workspace}${SEP}${key}@${doc.version}`), version: doc.version };
    });
  const readCollections = (workspace: string, wanted: CollectionRead): LoadedCollections => {
    const get = (t: Table, key: string) => t.get(entryKey(workspace, key));
    return {
      sets: (wanted.sets ?? []).map((key) => parseRecord<string[]>(get(tables.sets, key) ?? '[]', 'set', key, 'array')),
      hashes: (wanted.hashes ?? []).map((key) =>
        parseRecord<Record<string, string>>(get(tables.hashes, key) ?? '{}', 'hash', key, 'object'),
      ),
      counters: (wanted.counters ?? []).map((key) => Number(get(tables.counters, key) ?? 0)),
    };
  };

  const readRanges = (workspace: string, wanted: RangeRead): RangeSlice[] => {
    const zset =
      readSortedMembers(tables.zsets.get(entryKey(workspace, wanted.key)), wanted.key) ?? new SortedMembers();
    const text = wanted.values === undefined ? undefined : tables.hashes.get(entryKey(workspace, wanted.values));
    const values =
      text === undefined || wanted.values === undefined
        ? {}
        : parseRecord<Record<string, string>>(text, 'hash', wanted.values, 'object');
    return wanted.ranges.map((range) => zset.slice(range, (member) => values[member]));
  };

  const snapshotReads: SnapshotReads = {
    docs: loadDocs,
    hashes: (workspace, keys) => readCollections(workspace, { hashes: keys }).hashes,
    ranges: (workspace, read) => readRanges(workspace, read),
    request: rememberedAnswer,
  };

  return {
    kind: 'file',
    limits: createMemoryLimits(),
    // On disk too: a restart still reports the agents a crash cut off, and not a stall it reported before.
    presence: createMemoryPresence(createFilePresenceJournal(presence, write)),
    revocations: ({ log }) =>
      createFileRevocations(revoked, write, (err) => log.error({ err }, 'revocation listener failed')),
    load: (workspace, keys) => read(() => loadDocs(workspace, keys)),
    // One read of the engine's snapshot: no commit can come between them.
    loadWith: (workspace, keys, alongside) => read(() => loadFromSnapshot(snapshotReads, workspace, keys, alongside)),
    loadCollections: (workspace, wanted) => read(() => readCollections(workspace, wanted)),
    async commit(workspace, commit) {
      if (closed) throw new Error('store closed');
      const ticket = deliver.ticket();
      let outcome: CommitOutcome;
      try {
        outcome = await write(() => commitInTransaction(tables, workspace, commit, settings));
      } catch (err) {
        deliver.skip(ticket);
        throw err;
      }
      deliver.done(ticket, outcome.ok ? outcome.events : []);
      return outcome;
    },
    requestAnswer: (workspace, agentId, requestId) =>
      read(() => rememberedAnswer(workspace, { agent_id: agentId, request_id: requestId })),
    readEvents(workspace, range) {
      return read(() => readEventRange(tables.events, workspace, range, skipped));
    },
    trimmedThrough(workspace) {
      return read(() => readMeta(tables.meta.get(workspace), workspace).trimmedThrough);
    },
    // One node per directory: every commit is this node's own, so watching is filtering, not subscribing.
    watch(workspace, listener) {
      const own: EventListener = (event) => {
        if (event.workspace === workspace) listener(event);
      };
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    ping() {
      return closed ? Promise.reject(new Error('store closed')) : Promise.resolve();
    },
    // The engine grows its file as needed; a full disk fails the commit, which answers an error and changes nothing.
    writeHealth: () => Promise.resolve({ ok: true }),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      listeners.clear();
      await sweeping;
      try {
        await root.close();
      } finally {
        lock.release();
      }
    },
  };
};
