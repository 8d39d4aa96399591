import type { DependencyEdges } from '../core/dependencies/graph.ts';
import { docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/** The workspace's unresolved step→step edges (nodes `<plan_id>:<step_id>`), read for the cross-agent cycle check. */
export const loadEdges = async (tx: Tx): Promise<DependencyEdges> =>
  (await tx.get<DependencyEdges>(docKeys.dependencyGraph())) ?? {};

const sameEdges = (a: DependencyEdges, b: DependencyEdges): boolean => {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = a[k] ?? [];
    const y = b[k] ?? [];
    return x.length === y.length && x.every((t) => y.includes(t));
  });
};

/** Writes the graph only when it changed; an empty graph is deleted. */
export const saveEdges = (tx: Tx, before: DependencyEdges, after: DependencyEdges): void => {
  if (sameEdges(before, after)) return;
  if (Object.keys(after).length === 0) tx.delete(docKeys.dependencyGraph());
  else tx.put(docKeys.dependencyGraph(), after);
};
