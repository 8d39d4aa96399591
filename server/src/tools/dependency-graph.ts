import { fail } from '@planhub/shared';
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

/** How much of the graph one walk read: levels (two round trips each) and nodes (the starts included). */
export interface Walked {
  levels: number;
  nodes: number;
}

/**
 * The unresolved step→step edges reachable from `starts`, read level by level, each level in two round trips
 * however wide it is: the nodes' clocks, then their edges. At most `limit` nodes are read (the starts included):
 * past that the call is refused (RESOURCE_EXHAUSTED, `details.kind: 'reachableSteps'`) before reading more, so a
 * dependency chain of any length costs one call at most `limit` levels. What was read is added to `walked` (kept
 * across the call's attempts, to charge it), refused or not.
 */
export const loadReachableEdges = async (
  tx: Tx,
  starts: readonly string[],
  limit: number,
  walked: Walked = { levels: 0, nodes: 0 },
): Promise<DependencyEdges> => {
  const edges: Record<string, string[]> = {};
  let frontier = [...new Set(starts)];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    if (seen.size > limit) refuseReach(limit);
    walked.levels++;
    walked.nodes += frontier.length;
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

/** Levels and nodes a walk reads at no charge: a dependency a few steps deep, or on a few dozen steps. */
export const FREE_LEVELS = 8;
export const FREE_NODES = 64;
/** Past those, per unit of the caller's budget (see walkCost). */
export const LEVELS_PER_UNIT = 4;
export const NODES_PER_UNIT = 32;

/**
 * What a walk costs beyond the call itself, charged once the call has answered (refused or not). A level is two
 * round trips whatever its width: a chain of 1,000 steps (the default bound, walked to its end and refused) cost
 * 70-170 ms of node CPU and 30-50 ms of Redis CPU per call on a loaded two-core machine, 277 units here, about the
 * rate of a 200-step createPlan (48 units for 9-26 ms). A wide level costs per node: 801 steps in 3 levels cost
 * about 10 ms, 23 units.
 */
export const walkCost = ({ levels, nodes }: Walked): number =>
  Math.floor(Math.max(0, levels - FREE_LEVELS) / LEVELS_PER_UNIT) +
  Math.floor(Math.max(0, nodes - FREE_NODES) / NODES_PER_UNIT);

const refuseReach = (limit: number): never =>
  fail(
    'RESOURCE_EXHAUSTED',
    `The steps this step would wait on reach more than ${limit} steps through the dependencies still open behind ` +
      `them (limit reachableSteps), and a new dependency is checked for cycles through every one of them. Wait on a ` +
      'step with fewer open dependencies behind it (one nearer the start of that chain), or add this dependency ' +
      'once more of those steps have ended.',
    { kind: 'reachableSteps', limit },
  );

/** Adds the edges, bumping the clock of each node they leave (see above). */
export const recordEdges = async (tx: Tx, edges: ReadonlyArray<{ from: string; to: string }>): Promise<void> => {
  const byFrom = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const targets = byFrom.get(from);
    if (targets === undefined) byFrom.set(from, [to]);
    else targets.push(to);
  }
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
