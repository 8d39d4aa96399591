import type { DependencyEdges } from '../core/dependencies/graph.ts';
import { documents } from '../store/documents/documents.ts';
import { docKeys, setKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/**
 * The cycle check's concurrency, without a workspace-wide document: each node's edge clock (`edge-clock:<node>`)
 * is bumped by every call that adds edges from the node and read checked by every walk through it. Two additions
 * that together close a cycle each walk through the other's source node (A→B and C→D close A→B⇝C→D⇝A only if B
 * reaches C and D reaches A), so whichever commits second conflicts, re-runs and sees the first one's edges.
 * Additions in unrelated parts of the graph touch no common document. Completions only remove edges, which can
 * never close a cycle, so they bump nothing. A clock is deleted only with its plan (retention): a clock deleted and
 * made again would restart its version, and a walk that read the old one could pass its check.
 */

/**
 * The unresolved step→step edges reachable from `starts`, read level by level: the nodes' clocks, then their edges
 * (two round trips per level).
 */
export const loadReachableEdges = async (tx: Tx, starts: readonly string[]): Promise<DependencyEdges> => {
  const edges: Record<string, string[]> = {};
  let frontier = [...new Set(starts)];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    // The clocks first, the edges after: edges added after the clock was read bump it, so the commit's check sees
    // them. Read together (two round trips at once), an addition committing between the two reads could show its
    // new clock beside the old edges, and pass the check unseen.
    await tx.readMany(
      documents.edgeClock,
      frontier.map((node) => [node]),
    );
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

/** Adds the edges, bumping the clock of each node they leave (see above). */
export const recordEdges = async (tx: Tx, edges: ReadonlyArray<{ from: string; to: string }>): Promise<void> => {
  const byFrom = new Map<string, string[]>();
  for (const { from, to } of edges) byFrom.set(from, [...(byFrom.get(from) ?? []), to]);
  const sources = [...byFrom.keys()];
  const clocks = await tx.readMany(
    documents.edgeClock,
    sources.map((node) => [node]),
  );
  sources.forEach((from, i) => {
    tx.put(docKeys.edgeClock(from), { n: (clocks[i]?.n ?? 0) + 1 });
    tx.op({ op: 'sadd', key: setKeys.edges(from), members: byFrom.get(from) ?? [] });
  });
};
