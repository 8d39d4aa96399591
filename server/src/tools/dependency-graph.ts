import type { DependencyEdges } from '../core/dependencies/graph.ts';
import { documents } from '../store/documents/documents.ts';
import { docKeys, setKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/**
 * The unresolved step→step edges reachable from `starts`, read set by set (one round trip per level). Only calls
 * that add edges read them; completions only remove edges, which can never close a cycle, so they touch no shared
 * document.
 */
export const loadReachableEdges = async (tx: Tx, starts: readonly string[]): Promise<DependencyEdges> => {
  const edges: Record<string, string[]> = {};
  let frontier = [...new Set(starts)];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    const { sets } = await tx.collections({ sets: frontier.map(setKeys.edges) });
    const next: string[] = [];
    frontier.forEach((node, i) => {
      const targets = sets[i] ?? [];
      if (targets.length > 0) edges[node] = targets;
      for (const t of targets)
        if (!seen.has(t)) {
          seen.add(t);
          next.push(t);
        }
    });
    frontier = next;
  }
  return edges;
};

/**
 * Serializes the calls that add edges: each reads and bumps one small document, so of two concurrent additions
 * that would together close a cycle the second is re-run and sees the first one's edges. Call it before reading
 * the edges.
 */
export const claimGraph = async (tx: Tx): Promise<void> => {
  const clock = (await tx.read(documents.graphClock))?.n ?? 0;
  tx.put(docKeys.graphClock(), { n: clock + 1 });
};

export const recordEdges = (tx: Tx, edges: ReadonlyArray<{ from: string; to: string }>): void => {
  const byFrom = new Map<string, string[]>();
  for (const { from, to } of edges) byFrom.set(from, [...(byFrom.get(from) ?? []), to]);
  for (const [from, targets] of byFrom) tx.op({ op: 'sadd', key: setKeys.edges(from), members: targets });
};
