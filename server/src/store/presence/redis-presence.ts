import { readFileSync } from 'node:fs';
import { createCorruptEntries } from './corrupt-entries.ts';
import type { AgentPresence, LostAgent, PresenceBackend } from './presence-backend.ts';
import { later } from './presence-backend.ts';
import { decodeField, decodeStored, type StoredEntry } from './presence-entry.ts';

/** The few commands of an ioredis client this module uses (it never imports ioredis itself). */
export interface PresenceRedis {
  hset(key: string, ...fieldsAndValues: string[]): Promise<unknown>;
  hgetall(key: string): Promise<Record<string, string>>;
  hmget(key: string, ...fields: string[]): Promise<Array<string | null>>;
  zadd(key: string, score: number, member: string): Promise<number | string>;
  zscore(key: string, member: string): Promise<string | null>;
  zrangebyscore(key: string, min: string, max: string): Promise<string[]>;
  zrem(key: string, member: string): Promise<number>;
  sadd(key: string, ...members: string[]): Promise<unknown>;
  smembers(key: string): Promise<string[]>;
  del(key: string): Promise<unknown>;
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<string | null>;
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}

/** The client once presence-move.lua is registered on it. */
interface WithMove extends PresenceRedis {
  phPresenceMove(key: string, ...args: string[]): Promise<string[]>;
}

const GONE = '';

/**
 * Presence on Redis: per workspace one hash of (node, agent) → connections and last seen; a sorted set of nodes
 * scored by when their heartbeat lapses. A dead node's entries are taken by the one node whose ZREM removes it.
 */
export const createRedisPresence = (client: PresenceRedis, prefix: string): PresenceBackend => {
  // presence-move.lua moves a dead node's entries of one workspace to offline ones, each only if it still holds what
  // the taker read: the node may have come back meanwhile (its heartbeat had lapsed through an outage, not its
  // death) and written it again, which must stay. One key, so it runs on a Cluster too.
  client.defineCommand('phPresenceMove', {
    numberOfKeys: 1,
    lua: readFileSync(new URL('presence-move.lua', import.meta.url), 'utf8'),
  });
  const redis = client as WithMove;
  const key = {
    ws: (workspace: string) => `${prefix}:presence:ws:${workspace}`,
    nodes: `${prefix}:presence:nodes`,
    nodeWs: (node: string) => `${prefix}:presence:node-ws:${node}`,
    claim: (name: string) => `${prefix}:presence:claim:${name}`,
    workspaces: `${prefix}:workspaces`,
  };
  const field = (node: string, agent: string) => JSON.stringify([node, agent]);
  const corrupt = createCorruptEntries();
  /** The entry's node and agent, or undefined (named once) when its field is not a [node, agent] pair. */
  const nodeAgent = (hash: string, f: string) => {
    const decoded = decodeField(f);
    if (decoded.ok) return decoded.value;
    corrupt.found(`${hash} field ${f}`, `field: ${decoded.detail}`);
    return undefined;
  };
  /** The entry's value, or undefined (named once) when it is not one. */
  const stored = (hash: string, f: string, v: string) => {
    const decoded = decodeStored(v);
    if (decoded.ok) return decoded.value;
    corrupt.found(`${hash} field ${f}`, decoded.detail);
    return undefined;
  };
  let writes = 0;
  return {
    async write(nodeId, workspace, entries) {
      if (entries.length === 0) return;
      const w = ++writes;
      const pairs = entries.flatMap((e) => [
        field(nodeId, e.agent_id),
        JSON.stringify({ c: e.connections, at: e.last_seen_at, w } satisfies StoredEntry),
      ]);
      await Promise.all([redis.hset(key.ws(workspace), ...pairs), redis.sadd(key.nodeWs(nodeId), workspace)]);
    },
    async beat(nodeId, nowMs, ttlMs) {
      // Sent together, in this order, on one connection: the score read is the one the ZADD replaces. ZADD counts the
      // members it added: 1 when the node was not in the set (first beat, or taken for dead). A score at or before
      // now is a lapse no node has taken yet, which read, online and takeLost already count as dead.
      const [before, added] = await Promise.all([
        redis.zscore(key.nodes, nodeId),
        redis.zadd(key.nodes, nowMs + ttlMs, nodeId),
      ]);
      return Number(added) === 1 || before === null || Number(before) <= nowMs;
    },
    async read(workspace, nowMs) {
      const hash = key.ws(workspace);
      const [all, live] = await Promise.all([redis.hgetall(hash), redis.zrangebyscore(key.nodes, `(${nowMs}`, '+inf')]);
      const liveNodes = new Set(live);
      const out = new Map<string, AgentPresence>();
      for (const [f, v] of Object.entries(all)) {
        const who = nodeAgent(hash, f);
        const e = who && stored(hash, f, v);
        if (!who || !e) continue;
        const known = out.get(who.agent) ?? { online: false, last_seen_at: null };
        out.set(who.agent, {
          online: known.online || (liveNodes.has(who.node) && e.c > 0),
          last_seen_at: later(known.last_seen_at, e.at),
        });
      }
      return out;
    },
    async online(workspace, agentId, nowMs, exceptNode) {
      const live = (await redis.zrangebyscore(key.nodes, `(${nowMs}`, '+inf')).filter((node) => node !== exceptNode);
      if (live.length === 0) return false;
      const hash = key.ws(workspace);
      const fields = live.map((node) => field(node, agentId));
      const entries = await redis.hmget(hash, ...fields);
      return entries.some((v, i) => v !== null && (stored(hash, fields[i] as string, v)?.c ?? 0) > 0);
    },
    async takeLost(nowMs) {
      const lost: LostAgent[] = [];
      /**
       * Moves a dead node's entries of one workspace to offline ones; returns the agents it had connected. Only its
       * own entries are decoded: another node's corrupt entry is none of this take's business. Its own corrupt ones
       * are deleted, if unchanged since read: they cannot say whether the agent was connected (so it is not
       * reported), and left in place they would outlive the node for good, since nothing takes it again.
       */
      const takeWorkspace = async (node: string, workspace: string): Promise<LostAgent[]> => {
        const hash = key.ws(workspace);
        const mine: Array<{ f: string; v: string; agent: string; e: StoredEntry | undefined }> = [];
        for (const [f, v] of Object.entries(await redis.hgetall(hash))) {
          const who = nodeAgent(hash, f);
          if (who?.node === node) mine.push({ f, v, agent: who.agent, e: stored(hash, f, v) });
        }
        if (mine.length === 0) return [];
        // An empty offline field tells presence-move.lua to delete the entry only.
        const args = mine.flatMap(({ f, v, agent, e }) =>
          e ? [f, v, field(GONE, agent), JSON.stringify({ c: 0, at: e.at })] : [f, v, '', ''],
        );
        const moved = new Set(await redis.phPresenceMove(hash, ...args));
        return mine.flatMap(({ f, agent, e }) =>
          e && e.c > 0 && moved.has(f) ? [{ workspace, agent_id: agent, last_seen_at: e.at }] : [],
        );
      };
      for (const node of await redis.zrangebyscore(key.nodes, '-inf', String(nowMs))) {
        // The ZREM makes this caller the node's only taker.
        if ((await redis.zrem(key.nodes, node)) !== 1) continue;
        try {
          // A workspace's agents count as taken once its entries moved; a failure before that leaves them in place.
          for (const workspace of await redis.smembers(key.nodeWs(node)))
            lost.push(...(await takeWorkspace(node, workspace)));
          await redis.del(key.nodeWs(node));
        } catch (err) {
          // Without this the node, gone from the set, would never be taken again and its agents never reported
          // offline: it goes back as lapsed, so the next sweep (this node's or another's) takes what is left. At 0,
          // not this node's now: lapsed by every node's clock, its own included if it beats again (beat() compares).
          await redis.zadd(key.nodes, 0, node);
          if (lost.length === 0) throw err;
          return lost;
        }
      }
      return lost;
    },
    async claim(name, ttlMs) {
      return (await redis.set(key.claim(name), '1', 'PX', ttlMs, 'NX')) === 'OK';
    },
    async addWorkspace(workspace) {
      await redis.sadd(key.workspaces, workspace);
    },
    async workspaces() {
      return (await redis.smembers(key.workspaces)).sort();
    },
    takeCorrupt: () => corrupt.take(),
  };
};
