/**
 * The dependency graph both steps (across agents) and tasks (003) use: nodes are opaque strings, an edge
 * `from → to` means "from waits on to". Only unresolved edges are kept; a resolved dependency cannot deadlock.
 */
export type DependencyEdges = Readonly<Record<string, readonly string[]>>;

/** The path `to → … → from` that adding `from → to` would close into a cycle, or undefined when it is safe. */
export const findCycle = (edges: DependencyEdges, from: string, to: string): string[] | undefined => {
  if (from === to) return [from, to];
  const seen = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): boolean => {
    if (node === from) return true;
    if (seen.has(node)) return false;
    seen.add(node);
    path.push(node);
    for (const next of edges[node] ?? []) if (visit(next)) return true;
    path.pop();
    return false;
  };
  return visit(to) ? [from, ...path, from] : undefined;
};

export const addEdge = (edges: DependencyEdges, from: string, to: string): Record<string, string[]> => {
  const next: Record<string, string[]> = Object.fromEntries(Object.entries(edges).map(([k, v]) => [k, [...v]]));
  const list = next[from] ?? (next[from] = []);
  if (!list.includes(to)) list.push(to);
  return next;
};

export const removeEdge = (edges: DependencyEdges, from: string, to: string): Record<string, string[]> => {
  const next: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(edges)) {
    const kept = k === from ? v.filter((t) => t !== to) : [...v];
    if (kept.length > 0) next[k] = kept;
  }
  return next;
};

/** Drops a node and every edge touching it (a deleted task). */
export const removeNode = (edges: DependencyEdges, node: string): Record<string, string[]> => {
  const next: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(edges)) {
    if (k === node) continue;
    const kept = v.filter((t) => t !== node);
    if (kept.length > 0) next[k] = kept;
  }
  return next;
};
