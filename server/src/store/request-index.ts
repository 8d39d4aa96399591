/**
 * The memory store's request log bound: each agent's remembered request keys in the order they were answered.
 * Remembering one forgets, oldest first, those that expired and those past `keep`, so neither a flood of distinct
 * request_ids nor answers nobody asks for again grow the heap within the TTL. Answers of agents that never call again
 * leave through the store's expiry order instead (memory-requests.ts), which forgets them here too: an agent whose
 * last one went is no longer held.
 */
export const createRequestIndex = () => {
  const byAgent = new Map<string, Map<string, number>>();
  return {
    /** Records `key` (expiring at `expires`) for `agent`; returns the keys to forget. */
    remembered(agent: string, key: string, expires: number, keep: number | undefined, now: number): string[] {
      const keys = byAgent.get(agent) ?? new Map<string, number>();
      byAgent.set(agent, keys);
      keys.delete(key);
      keys.set(key, expires);
      const forgotten: string[] = [];
      for (const [oldest, expiry] of keys) {
        if (expiry > now && (keep === undefined || keys.size <= keep)) break;
        keys.delete(oldest);
        forgotten.push(oldest);
      }
      // Its own key gone too (a TTL of 0, or `keep` 0): nothing of the agent is left.
      if (keys.size === 0) byAgent.delete(agent);
      return forgotten;
    },
    /** Drops `key` of `agent`, forgotten otherwise (expired, or replaced). */
    forget(agent: string, key: string) {
      const keys = byAgent.get(agent);
      if (!keys?.delete(key) || keys.size > 0) return;
      byAgent.delete(agent);
    },
    /** How many agents it holds keys of. */
    agents: () => byAgent.size,
  };
};
