import type { PlanHubError } from '@planhub/shared';
import { eventBytes } from '../events/event-json.ts';
import { textBytes } from '../limits/text-bytes.ts';
import { opBytes } from './memory-collection-bytes.ts';
import { WORKSPACE_BYTES, type NodeBytes } from './memory-node-bytes.ts';
import { docJsonBytes, type Workspace } from './memory-workspace.ts';
import type { Commit, DocWrite, QuotaRefusal, StoreOp } from './store.ts';
import { commitBytes } from './workspace-bytes.ts';

/** `"event_id":"<ms>-<seq>",`, at most: a 13-digit millisecond and a sequence below 10^9. */
const EVENT_ID_BYTES = 40;

/** The two byte bounds a memory-store commit must fit, checked before anything applies. */
export interface CommitBytesCheck {
  w: Workspace;
  /** The commit makes the workspace (its first write): the workspace's own heap counts too. */
  created: boolean;
  commit: Commit;
  fires: readonly boolean[];
  /** The bytes of a write (its JSON is made once per commit). */
  written: (doc: DocWrite) => number;
  /** The workspace's event bytes kept now. */
  workspaceEvents: number;
  workspaceBytes: number | undefined;
  node: NodeBytes;
  /** The key and text of the answer the commit remembers, when it has a request_id. */
  remembered: { key: string; text: string } | undefined;
}

/**
 * The refusal of a commit that would take its workspace past workspaceBytes (a QuotaRefusal, worded by transact.ts)
 * or the node past memoryStoreBytes (an error the commit rejects with, as the Redis store's out-of-memory one);
 * undefined when it fits.
 */
export const commitRefusal = (c: CommitBytesCheck): { quota: QuotaRefusal } | { error: PlanHubError } | undefined => {
  const { w, commit, fires } = c;
  if (c.workspaceBytes === undefined && c.node.limit === undefined) return undefined;
  const needed = commitBytes(commit, fires, (key) => docJsonBytes(w, key), c.written);
  if (c.workspaceBytes !== undefined) {
    const used = w.docBytes + c.workspaceEvents;
    if (needed > 0 && used + needed > c.workspaceBytes)
      return { quota: { ok: false, reason: 'quota', used, needed, limit: c.workspaceBytes } };
  }
  const fanIns = commit.fanIns ?? [];
  const firedEvents = fanIns.flatMap((f, i) => (fires[i] ? f.then.events : []));
  // The log adds an id to each event: counted at its longest.
  const sizes = [...commit.events, ...firedEvents].map((e) => eventBytes(e) + EVENT_ID_BYTES);
  const events = sizes.reduce((sum, bytes) => sum + bytes, 0);
  // A fan-in's record is written whether or not it fires; its ops only when it fires.
  const ops: StoreOp[] = [
    ...(commit.ops ?? []),
    ...fanIns.flatMap((f, i) => [
      ...(f.record ? [{ op: 'hset' as const, key: f.record.hash, fields: f.record.fields }] : []),
      ...(fires[i] ? f.then.ops : []),
    ]),
  ];
  const collections = ops.reduce((sum, op) => sum + opBytes(w, op), 0);
  const request = c.remembered ? textBytes(c.remembered.key) + textBytes(c.remembered.text) : 0;
  const workspace = c.created ? WORKSPACE_BYTES : 0;
  const held = needed - (events - sizes.length * EVENT_ID_BYTES) + collections + request + workspace;
  const error = c.node.refusal(held, { bytes: events, last: sizes.at(-1) ?? 0, replaced: w.events.newestBytes });
  return error && { error };
};
