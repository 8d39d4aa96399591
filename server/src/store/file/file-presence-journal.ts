import { createHash } from 'node:crypto';
import type { NodeEntry } from '../presence/presence-backend.ts';
import { agentsOf, emptyState, type PresenceJournal, type PresenceState } from '../presence/memory-presence.ts';
import { prefixRange, SEP } from './file-keys.ts';
import type { Table } from './file-state.ts';

/**
 * The file store's presence on disk, in one table: `e` entries (workspace, node, agent → the entry's JSON), `l` each
 * node's heartbeat (→ live until, ms), `c` claims (→ [until ms, the claim]), `w` the workspace index. Read whole when the store
 * opens; each change is written through in its own transaction (connections, disconnections and the heartbeat's
 * flush: a few per second at most).
 */
const ENTRY = 'e';
const LIVE = 'l';
const CLAIM = 'c';
const WORKSPACE = 'w';
/** Claim keys name a workspace, a plan, a step and a time: a long one is hashed to stay within LMDB's key size. */
const MAX_CLAIM_KEY = 400;

const key = (...parts: string[]) => parts.join(SEP);
const claimKey = (claim: string) =>
  claim.length <= MAX_CLAIM_KEY ? claim : `#${createHash('sha256').update(claim).digest('base64url')}`;

/**
 * A stored value's JSON, or its text when it is not JSON. The store opens all the same: the memory presence's check
 * of what was loaded names an entry that is not one, and a claim that is not one is dropped.
 */
const jsonOrText = (value: string): unknown => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

/** A claim's stored `[until ms, claim]`, or undefined when it is not one. */
const claimOf = (value: string): [number, string] | undefined => {
  const parsed = jsonOrText(value);
  return Array.isArray(parsed) && typeof parsed[0] === 'number' && typeof parsed[1] === 'string'
    ? [parsed[0], parsed[1]]
    : undefined;
};

export const createFilePresenceJournal = (
  table: Table,
  write: (fn: () => void) => Promise<unknown>,
  now: () => number = Date.now,
): PresenceJournal => {
  const entryKey = (workspace: string, nodeId: string, agentId: string) => key(ENTRY, workspace, nodeId, agentId);
  return {
    load(): PresenceState {
      const state = emptyState();
      for (const { key: raw, value } of table.getRange({})) {
        const [kind, ...rest] = String(raw).split(SEP);
        if (kind === ENTRY && rest.length === 3) {
          const [workspace = '', nodeId = '', agentId = ''] = rest;
          // Checked by the memory presence before any use (dropCorrupt).
          agentsOf(state, workspace, nodeId).set(agentId, jsonOrText(value) as NodeEntry);
        } else if (kind === LIVE) {
          // Unreadable ("abc" is NaN, which no comparison finds lapsed): lapsed, so the node is taken, not kept for good.
          const until = Number(value);
          state.liveUntil.set(rest.join(SEP), Number.isFinite(until) ? until : 0);
        } else if (kind === CLAIM) {
          const [until, claim] = claimOf(value) ?? [0, ''];
          if (until > now()) state.claims.set(claim, until);
        } else if (kind === WORKSPACE) state.workspaces.add(rest.join(SEP));
      }
      return state;
    },
    entries: async (workspace, nodeId, entries) => {
      await write(() => {
        for (const e of entries) table.put(entryKey(workspace, nodeId, e.agent_id), JSON.stringify(e));
      });
    },
    liveUntil: async (nodeId, until) => {
      await write(() => table.put(key(LIVE, nodeId), String(until)));
    },
    nodeLost: async (nodeId, kept) => {
      await write(() => {
        table.remove(key(LIVE, nodeId));
        for (const { key: raw } of [...table.getRange(prefixRange(ENTRY))]) {
          const parts = String(raw).split(SEP);
          if (parts[2] === nodeId) table.remove(String(raw));
        }
        for (const { workspace, entry } of kept)
          table.put(entryKey(workspace, '', entry.agent_id), JSON.stringify(entry));
      });
    },
    claim: async (claim, until) => {
      await write(() => {
        // Expired (or unreadable) claims go as new ones come: at most one per stall reported within the claims' lifetime remain.
        for (const { key: raw, value } of [...table.getRange(prefixRange(CLAIM))])
          if ((claimOf(value)?.[0] ?? 0) <= now()) table.remove(String(raw));
        table.put(key(CLAIM, claimKey(claim)), JSON.stringify([until, claim]));
      });
    },
    workspace: async (workspace) => {
      await write(() => table.put(key(WORKSPACE, workspace), ''));
    },
  };
};
