import type { NodeBytes } from './memory-node-bytes.ts';
import { forgetRequest, rememberRequest, type Remembered, type Workspace } from './memory-workspace.ts';

/** What a commit remembers its answer for (the store's Commit `request`). */
interface Request {
  agent_id: string;
  ttl_ms: number;
  keep?: number | undefined;
}

/**
 * The memory store's remembered answers (request_id), each also in one order of every workspace's answers, oldest
 * first, which each commit sweeps from its head. An answer used to leave only when its agent committed again or its
 * key was asked for; the SDK puts a request_id on every mutating call, so short-lived subagents left theirs for good,
 * counted against PLANHUB_MEMORY_STORE_BYTES: a 4 MiB store refused every write after 4,084 agents' 1 KB answers,
 * and still did a day later when all had expired. Answers share one TTL (requestTtlMs), so the oldest remembered is
 * the first to expire and a sweep with nothing expired reads one entry; one remembered with a longer TTL holds those
 * behind it back only until it expires itself (each is still never answered past its own expiry).
 */
export const createRememberedAnswers = (node: Pick<NodeBytes, 'changed'>, now: () => number) => {
  const oldestFirst = new Map<Remembered, Workspace>();

  /** Forgets the answer under `key` everywhere it is kept; the caller counts the bytes. */
  const forget = (w: Workspace, key: string) => {
    const entry = w.requests.get(key);
    if (!entry) return;
    forgetRequest(w, key);
    oldestFirst.delete(entry);
    w.requestIndex.forget(entry.agent, key);
  };
  const forgetCounted = (w: Workspace, key: string) => {
    const before = w.requestBytes;
    forget(w, key);
    node.changed(w.requestBytes - before);
  };

  return {
    /** The answer under `key` while it is live; one that expired is forgotten, and its bytes freed. */
    live(w: Workspace, key: string): Remembered | undefined {
      const entry = w.requests.get(key);
      if (!entry || entry.expires > now()) return entry;
      forgetCounted(w, key);
      return undefined;
    },
    /**
     * Remembers a commit's answer, forgetting the agent's expired ones and those past its `keep`. Inside the commit,
     * which counts what its workspace holds before and after.
     */
    remember(w: Workspace, key: string, text: string, request: Request) {
      forget(w, key);
      const at = now();
      const entry: Remembered = { text, expires: at + request.ttl_ms, agent: request.agent_id, key };
      rememberRequest(w, entry);
      oldestFirst.set(entry, w);
      for (const old of w.requestIndex.remembered(request.agent_id, key, entry.expires, request.keep, at))
        forget(w, old);
    },
    /** Forgets every answer whose expiry has passed, in every workspace, and frees its bytes. */
    sweep() {
      const at = now();
      for (const [entry, w] of oldestFirst) {
        if (entry.expires > at) return;
        forgetCounted(w, entry.key);
      }
    },
    /** How many answers are remembered in all. */
    size: () => oldestFirst.size,
  };
};
