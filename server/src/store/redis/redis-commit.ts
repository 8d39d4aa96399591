import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { withEventId } from '@planhub/shared';
import { eventJson } from '../../events/event-json.ts';
import type { Commit, CommitOutcome, DocRead, DocWrite, StoreOp } from '../store.ts';
import { encodeRemembered } from '../request-fingerprint.ts';
import { corruptDocument } from '../documents/define.ts';
import { corruptHashEntry, corruptRecord } from '../corrupt-stored.ts';
import type { RedisKeys } from './redis-keys.ts';

/**
 * The arguments of commit.lua (its header describes the shape) and the keys it touches: the commit as JSON first,
 * then each document's and the remembered answer's JSON text as an argument of its own, named by its position in the
 * JSON. Text passed as is is neither escaped into the JSON here nor unescaped by the script.
 */
export interface PackedCommit {
  keys: string[];
  args: string[];
}

/** Packs a commit for commit.lua: every key in full, arrays by position as the script's header names them. */
export const packCommit = (
  keys: RedisKeys,
  workspace: string,
  commit: Commit,
  settings: { retention: number; quota?: number },
): PackedCommit => {
  // Keys travel once, in KEYS (declared for Redis Cluster); the JSON names each by its index there. Full keys
  // repeated in the JSON made it about twice as long, and decoding it was the script's largest single step.
  const touched = new Map<string, number>([
    [keys.events(workspace), 1],
    [keys.bytes(workspace), 2],
    [keys.trimmed(workspace), 3],
  ]);
  /** KEYS index of `key` in the script. */
  const touch = (key: string) => {
    let at = touched.get(key);
    if (at === undefined) touched.set(key, (at = touched.size + 1));
    return at;
  };
  const args = [''];
  /** ARGV index of `text` in the script. */
  const pass = (text: string) => args.push(text);
  const reads = (list: readonly DocRead[]) => list.map((r) => [touch(keys.doc(workspace, r.key)), String(r.version)]);
  const writes = (list: readonly DocWrite[]) =>
    list.map((w) => [touch(keys.doc(workspace, w.key)), w.value === null ? 0 : pass(JSON.stringify(w.value))]);
  const ops = (list: readonly StoreOp[]) =>
    list.flatMap((op): unknown[] => {
      switch (op.op) {
        case 'sadd':
          if (op.members.length === 0) return [];
          return [['sadd', touch(keys.set(workspace, op.key)), op.members, ...(op.max !== undefined ? [op.max] : [])]];
        case 'srem':
          return op.members.length === 0 ? [] : [['srem', touch(keys.set(workspace, op.key)), op.members]];
        case 'hset': {
          const flat = Object.entries(op.fields).flat();
          return flat.length === 0 ? [] : [[op.onlyNew ? 'hsetnx' : 'hset', touch(keys.hash(workspace, op.key)), flat]];
        }
        case 'hdel':
          return op.fields.length === 0 ? [] : [['hdel', touch(keys.hash(workspace, op.key)), op.fields]];
        case 'incr':
          return [['incr', touch(keys.counter(workspace, op.key)), op.by]];
        case 'zadd': {
          // ZADD's own order: score, then member; scores as text, so no float formatting of the JSON decoder.
          const flat = Object.entries(op.members).flatMap(([member, score]) => [String(score), member]);
          return flat.length === 0 ? [] : [['zadd', touch(keys.zset(workspace, op.key)), flat]];
        }
        case 'zrem':
          return op.members.length === 0 ? [] : [['zrem', touch(keys.zset(workspace, op.key)), op.members]];
        case 'del':
          return [['del', touch(keys[op.kind](workspace, op.key))]];
        case 'bump':
          return [['bump', touch(keys.doc(workspace, op.key))]];
      }
    });
  // Each event's JSON as an argument of its own, like the documents: not escaped into the commit's JSON.
  const events = (list: readonly NewEvent[]) => list.map((e) => pass(eventJson(e)));
  const packed = {
    channel: keys.channel(workspace),
    workspace,
    retention: settings.retention,
    ...(settings.quota !== undefined ? { quota: settings.quota } : {}),
    ...(commit.request
      ? {
          request: [
            touch(keys.request(workspace, commit.request.agent_id, commit.request.request_id)),
            commit.request.ttl_ms,
            pass(encodeRemembered(commit.request.fingerprint, JSON.stringify(commit.request.answer ?? null))),
            ...(commit.request.keep !== undefined
              ? [
                  touch(keys.requestIndex(workspace, commit.request.agent_id)),
                  commit.request.keep,
                  commit.request.request_id,
                  // No time: the script scores the answer by Redis's clock, never this node's.
                  keys.request(workspace, commit.request.agent_id, ''),
                ]
              : []),
          ],
        }
      : {}),
    reads: reads(commit.reads),
    writes: writes(commit.writes),
    ops: ops(commit.ops ?? []),
    fanins: (commit.fanIns ?? []).map((f) => [
      touch(keys.set(workspace, f.set)),
      f.member,
      f.record ? [touch(keys.hash(workspace, f.record.hash)), Object.entries(f.record.fields).flat()] : false,
      reads(f.then.reads),
      writes(f.then.writes),
      ops(f.then.ops),
      events(f.then.events),
      f.then.fills.map((x) => [
        JSON.stringify(x.token),
        touch(keys.hash(workspace, x.hash)),
        x.as,
        ...(x.cap ? [[x.cap.bytes, x.cap.marker, JSON.stringify(x.cap.omitted), x.cap.member]] : []),
      ]),
      f.answer ? [JSON.stringify(f.answer.token), JSON.stringify(f.answer.value)] : false,
    ]),
    events: events(commit.events),
  };
  args[0] = JSON.stringify(packed);
  return { keys: [...touched.keys()], args };
};

/** Reads commit.lua's reply: the commit's own events' ids, the counters, then each fired fan-in event. */
export const unpackOutcome = (commit: Commit, reply: string[]): CommitOutcome => {
  if (reply[0] === 'quota')
    return { ok: false, reason: 'quota', used: Number(reply[1]), needed: Number(reply[2]), limit: Number(reply[3]) };
  if (reply[0] === 'bound') {
    // The script names the refused op by its place among the bounded ones, in order (empty ones are not sent).
    const bounded = (commit.ops ?? []).filter((op) => op.op === 'sadd' && op.max !== undefined && op.members.length);
    const key = bounded[Number(reply[1]) - 1]?.key ?? '';
    return { ok: false, reason: 'bound', key, size: Number(reply[2]), added: Number(reply[4]), max: Number(reply[3]) };
  }
  if (reply[0] === 'corrupt') {
    // The script names the document by its Redis key; the message names it as every other corrupt document is.
    const key = reply[1] ?? '';
    const at = key.indexOf('}:doc:');
    throw corruptDocument(at < 0 ? key : key.slice(at + 6), reply[2] ?? 'unreadable');
  }
  if (reply[0] === 'corrupt-counter') {
    const key = reply[1] ?? '';
    throw corruptRecord('counter', key.slice(key.indexOf('}:') + 2), 'not an integer');
  }
  if (reply[0] === 'corrupt-fill') {
    const fill = commit.fanIns?.[Number(reply[1]) - 1]?.then.fills[Number(reply[2]) - 1];
    throw corruptHashEntry(fill?.hash ?? '?', reply[3] ?? '', reply[4] ?? 'not JSON');
  }
  if (reply[0] !== 'ok') return { ok: false, reason: 'conflict' };
  const own = Number(reply[1]);
  const events: EventEnvelope[] = commit.events.map((e, i) => withEventId(reply[2 + i] ?? '', e));
  const countersAt = 2 + own;
  const counterCount = Number(reply[countersAt]);
  const counters = reply.slice(countersAt + 1, countersAt + 1 + counterCount).map(Number);
  const firedAt = countersAt + 1 + counterCount;
  const firedCount = Number(reply[firedAt]);
  const fired = reply.slice(firedAt + 1, firedAt + 1 + firedCount).map((flag) => flag === '1');
  const extra = reply.slice(firedAt + 1 + firedCount);
  for (let i = 0; i < extra.length; i += 2)
    events.push({ event_id: extra[i] ?? '', ...(JSON.parse(extra[i + 1] ?? '{}') as NewEvent) });
  return { ok: true, events, ...(counters.length > 0 ? { counters } : {}), ...(firedCount > 0 ? { fired } : {}) };
};
