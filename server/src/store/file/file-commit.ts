import { SortedMembers } from '../sorted-members.ts';
import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { withEventId } from '@planhub/shared';
import { envelopeJson } from '../../events/event-json.ts';
import { NO_VALUE } from '../bumped-doc.ts';
import { applyFill, fillAnswer, fillEvent, fillText } from '../fill.ts';
import { encodeRemembered } from '../request-fingerprint.ts';
import { boundRefusal } from '../set-bounds.ts';
import type { Commit, CommitOutcome, DocRead, DocWrite, FanIn, StoreOp } from '../store.ts';
import { textBytes } from '../../limits/text-bytes.ts';
import { commitBytes } from '../workspace-bytes.ts';
import { eventKey, expiryKey, requestEntryKey, prefixRange } from './file-keys.ts';
import { decodeRequest, encodeRequest, type Tables } from './file-state.ts';
import { rememberInOrder } from './request-order.ts';
import { eventIdOfKey } from './file-event-log.ts';
import { corruptHashEntry } from '../corrupt-stored.ts';
import { WorkspaceView } from './workspace-view.ts';

export interface CommitSettings {
  eventRetention: number;
  workspaceBytes?: number;
  now: () => number;
}

const stale = (w: WorkspaceView, reads: readonly DocRead[]) =>
  reads.some(({ key, version }) => (w.doc(key)?.version ?? 0) !== version);

/** Which fan-ins of a commit will fire, found before anything applies (their `then.reads` must hold too). */
const firing = (w: WorkspaceView, fanIns: readonly FanIn[]): boolean[] => {
  const removed = new Map<string, Set<string>>();
  return fanIns.map(({ set, member }) => {
    const current = w.set(set);
    const gone = removed.get(set) ?? new Set<string>();
    removed.set(set, gone);
    if (!current?.has(member) || gone.has(member)) return false;
    gone.add(member);
    return current.size === gone.size;
  });
};

const write = (w: WorkspaceView, writes: readonly DocWrite[], json: (d: DocWrite) => string) => {
  for (const doc of writes) {
    const old = w.doc(doc.key);
    w.meta.docBytes -= textBytes(old?.json ?? '');
    if (doc.value === null) w.putDoc(doc.key, undefined);
    else {
      const text = json(doc);
      w.putDoc(doc.key, { version: (old?.version ?? 0) + 1, json: text });
      w.meta.docBytes += textBytes(text);
    }
  }
};

const apply = (w: WorkspaceView, ops: readonly StoreOp[], counters: number[]) => {
  for (const op of ops) {
    if (op.op === 'sadd') {
      const set = w.set(op.key) ?? new Set<string>();
      for (const m of op.members) set.add(m);
      w.putSet(op.key, set);
    } else if (op.op === 'srem') {
      const set = w.set(op.key);
      for (const m of op.members) set?.delete(m);
      if (set) w.putSet(op.key, set.size === 0 ? undefined : set);
    } else if (op.op === 'hset') {
      const hash = w.hash(op.key) ?? new Map<string, string>();
      for (const [f, v] of Object.entries(op.fields)) if (!op.onlyNew || !hash.has(f)) hash.set(f, v);
      w.putHash(op.key, hash);
    } else if (op.op === 'hdel') {
      const hash = w.hash(op.key);
      for (const f of op.fields) hash?.delete(f);
      if (hash) w.putHash(op.key, hash.size === 0 ? undefined : hash);
    } else if (op.op === 'incr') {
      const value = (w.counter(op.key) ?? 0) + op.by;
      w.putCounter(op.key, value);
      counters.push(value);
    } else if (op.op === 'zadd') {
      const zset = w.zset(op.key) ?? new SortedMembers();
      for (const [m, score] of Object.entries(op.members)) zset.add(m, score);
      w.putZset(op.key, zset);
    } else if (op.op === 'zrem') {
      const zset = w.zset(op.key);
      for (const m of op.members) zset?.remove(m);
      if (zset) w.putZset(op.key, zset.size === 0 ? undefined : zset);
    } else if (op.op === 'bump') {
      const doc = w.doc(op.key);
      w.putDoc(op.key, { version: (doc?.version ?? 0) + 1, json: doc?.json ?? NO_VALUE });
    } else if (op.kind === 'set') w.putSet(op.key, undefined);
    else if (op.kind === 'hash') w.putHash(op.key, undefined);
    else if (op.kind === 'zset') w.putZset(op.key, undefined);
    else w.putCounter(op.key, undefined);
  }
};

const notJson = (text: string, wantString: boolean) => {
  try {
    const value: unknown = JSON.parse(text);
    return wantString && typeof value !== 'string';
  } catch {
    return true;
  }
};

/**
 * A fill splices its hash's entries into JSON text unchecked: an entry that is not JSON would be written into a
 * document unparsed. Checked as commit.lua checks them (each field, and each value spliced into an object), before
 * anything reaches the engine; only a fired fan-in with fills pays for it.
 */
const checkFills = (w: WorkspaceView, fanIn: FanIn) => {
  for (const fill of fanIn.then.fills)
    for (const [field, value] of w.hash(fill.hash) ?? []) {
      const object = fill.as !== 'keys';
      if (notJson(field, object)) throw corruptHashEntry(fill.hash, field, 'the field is not a JSON string');
      if (object && notJson(value, false)) throw corruptHashEntry(fill.hash, field, 'its value is not JSON');
    }
};

/** A fired fan-in's writes and events, with its fills applied to their JSON text (events within their caps). */
const fire = (w: WorkspaceView, fanIn: FanIn, counters: number[]): NewEvent[] => {
  checkFills(w, fanIn);
  const filled = (json: string) =>
    fanIn.then.fills.reduce((text, f) => applyFill(text, f.token, fillText(w.hash(f.hash), f.as)), json);
  const events = fanIn.then.events.map(
    (e) => JSON.parse(fillEvent(JSON.stringify(e), fanIn.then.fills, (hash) => w.hash(hash))) as NewEvent,
  );
  write(w, fanIn.then.writes, (doc) => filled(JSON.stringify(doc.value)));
  apply(w, fanIn.then.ops, counters);
  return events;
};

const nextId = (w: WorkspaceView, now: number): [number, number] => {
  if (now > w.meta.lastMs) {
    w.meta.lastMs = now;
    w.meta.lastSeq = 0;
  } else w.meta.lastSeq += 1;
  return [w.meta.lastMs, w.meta.lastSeq];
};

/** Drops the oldest events past the retention count, keeping the byte count in step. */
const trim = (tables: Tables, w: WorkspaceView, retention: number) => {
  const excess = w.meta.events - retention;
  if (excess <= 0) return;
  const oldest = [...tables.events.getRange({ ...prefixRange(w.workspace), limit: excess })];
  for (const { key, value } of oldest) {
    tables.events.remove(key as string);
    w.meta.events -= 1;
    w.meta.eventBytes -= textBytes(value);
  }
  // From the key, not the entry's JSON: an entry that is not JSON (readers skip it) must not fail every commit.
  const last = oldest.at(-1)?.key;
  if (last !== undefined) w.meta.trimmedThrough = eventIdOfKey(last as string);
};

/**
 * One commit inside the engine's write transaction, with exactly the memory store's rules (the same checks, fan-ins,
 * fills, event ids, retention and quota); it sees every commit before it, batched or not.
 */
export const commitInTransaction = (
  tables: Tables,
  workspace: string,
  commit: Commit,
  settings: CommitSettings,
): CommitOutcome => {
  const w = new WorkspaceView(tables, workspace);
  const now = settings.now();
  const fanIns = commit.fanIns ?? [];
  const fires = firing(w, fanIns);
  const reqKey = commit.request && requestEntryKey(workspace, commit.request.agent_id, commit.request.request_id);
  const remembered = reqKey === undefined ? undefined : decodeRequest(tables.requests.get(reqKey));
  if (
    stale(w, commit.reads) ||
    fanIns.some((f, i) => fires[i] && stale(w, f.then.reads)) ||
    (remembered !== undefined && remembered.expires > now)
  )
    return { ok: false, reason: 'conflict' };
  const overBound = boundRefusal(commit.ops ?? [], (key) => w.set(key));
  if (overBound) return overBound;
  if (settings.workspaceBytes !== undefined) {
    const needed = commitBytes(commit, fires, (key) => textBytes(w.doc(key)?.json ?? ''));
    const used = w.meta.docBytes + w.meta.eventBytes;
    if (needed > 0 && used + needed > settings.workspaceBytes)
      return { ok: false, reason: 'quota', used, needed, limit: settings.workspaceBytes };
  }
  const counters: number[] = [];
  write(w, commit.writes, (doc) => JSON.stringify(doc.value));
  apply(w, commit.ops ?? [], counters);
  const expires = now + (commit.request?.ttl_ms ?? 0);
  const request =
    commit.request &&
    encodeRequest(
      expires,
      encodeRemembered(
        commit.request.fingerprint,
        fillAnswer(JSON.stringify(commit.request.answer ?? null), fanIns, fires),
      ),
    );
  const newEvents: NewEvent[] = [...commit.events];
  for (const fanIn of fanIns) {
    const set = w.set(fanIn.set);
    if (!set?.delete(fanIn.member)) continue;
    w.putSet(fanIn.set, set);
    if (fanIn.record) apply(w, [{ op: 'hset', key: fanIn.record.hash, fields: fanIn.record.fields }], counters);
    if (set.size > 0) continue;
    w.putSet(fanIn.set, undefined);
    newEvents.push(...fire(w, fanIn, counters));
  }
  const events = newEvents.map((e): { envelope: EventEnvelope; key: string; json: string } => {
    const [ms, seq] = nextId(w, now);
    const id = `${ms}-${seq}`;
    return { envelope: withEventId(id, e), key: eventKey(workspace, ms, seq), json: envelopeJson(id, e) };
  });
  // Nothing above wrote to the engine; from here on only writes.
  if (reqKey !== undefined && request !== undefined) {
    tables.requests.put(reqKey, request);
    const { agent_id: agentId, keep } = commit.request ?? {};
    const order =
      agentId === undefined
        ? ''
        : rememberInOrder(tables, workspace, { agentId, requestKey: reqKey, expires, keep }, now);
    // The key names the request already; the value names what the key cannot: the agent's order entry.
    tables.expiries.put(expiryKey(expires, reqKey), order);
  }
  for (const e of events) {
    tables.events.put(e.key, e.json);
    w.meta.events += 1;
    w.meta.eventBytes += textBytes(e.json);
  }
  trim(tables, w, settings.eventRetention);
  w.flush();
  return {
    ok: true,
    events: events.map((e) => e.envelope),
    ...(counters.length > 0 ? { counters } : {}),
    ...(fanIns.length > 0 ? { fired: fires } : {}),
  };
};
