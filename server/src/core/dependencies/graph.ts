/**
 * The dependency graph both steps (across agents) and tasks (003) use: nodes are opaque strings, an edge
 * `from → to` means "from waits on to". Only unresolved edges are kept; a resolved dependency cannot deadlock.
 *
 * Nothing here recurses: every walk keeps its own stack, so a chain of any length is walked (a recursive walk
 * overflowed the call stack past about 7,000 steps). And nothing copies a graph per edge: a call builds its graph
 * once (`DependencyGraph`, its own copy of what it read) and grows it in place.
 */
export type DependencyEdges = Readonly<Record<string, readonly string[]>>;

/** An edge: `from` waits on `to`. */
export interface Edge {
  from: string;
  to: string;
}

/**
 * What the walks of one call did, counted: each edge followed and each edge added is one step. The cost of a call
 * is bounded by its size through it (the tests count it; nothing here refuses on it).
 */
export interface GraphWork {
  steps: number;
}

const NONE: readonly string[] = [];

/**
 * A graph one call builds from the edges it read and grows in place: the edges given are copied once, never
 * changed. Each node's targets keep their order (the edges given, then those added), each target once.
 */
export class DependencyGraph {
  private readonly out = new Map<string, Set<string>>();

  constructor(
    edges: DependencyEdges = {},
    readonly work: GraphWork = { steps: 0 },
  ) {
    for (const from of Object.keys(edges)) for (const to of edges[from] ?? NONE) this.add(from, to);
  }

  /** Adds `from → to`; false when the graph had it already. */
  add(from: string, to: string): boolean {
    this.work.steps++;
    const targets = this.out.get(from);
    if (targets === undefined) {
      this.out.set(from, new Set([to]));
      return true;
    }
    if (targets.has(to)) return false;
    targets.add(to);
    return true;
  }

  targets(node: string): Iterable<string> {
    return this.out.get(node) ?? NONE;
  }
}

type Graph = DependencyEdges | DependencyGraph;
type Next = (node: string) => Iterable<string>;

const nextOf = (graph: Graph): Next =>
  graph instanceof DependencyGraph
    ? (node) => graph.targets(node)
    : (node) => (Object.hasOwn(graph, node) ? graph[node] : undefined) ?? NONE;

/**
 * Depth first from `to`, on a stack of its own, looking for `from`: the path `from → to → … → from` when it is
 * found. `seen` holds the nodes already known not to reach `from` (the walk adds those it enters). Neighbours are
 * taken in order, so the path is the one a recursive walk would find first.
 */
const walkBack = (next: Next, from: string, to: string, seen: Set<string>, work: GraphWork): string[] | undefined => {
  if (from === to) return [from, to];
  if (seen.has(to)) return undefined;
  seen.add(to);
  const path = [to];
  const open: Array<Iterator<string>> = [next(to)[Symbol.iterator]()];
  while (open.length > 0) {
    const step = open[open.length - 1]!.next();
    if (step.done) {
      open.pop();
      path.pop();
      continue;
    }
    work.steps++;
    const node = step.value;
    if (node === from) return [from, ...path, from];
    if (seen.has(node)) continue;
    seen.add(node);
    path.push(node);
    open.push(next(node)[Symbol.iterator]());
  }
  return undefined;
};

/** The path `to → … → from` that adding `from → to` would close into a cycle, or undefined when it is safe. */
export const findCycle = (
  edges: Graph,
  from: string,
  to: string,
  work: GraphWork = { steps: 0 },
): string[] | undefined => walkBack(nextOf(edges), from, to, new Set(), work);

/**
 * The cycle check of edges that all leave `from` (one step waiting on several others): `check(to)` answers as
 * `findCycle(graph, from, to)` on the graph as it is then, where only edges leaving `from` are added between two
 * checks. A path that ends at `from` never takes an edge leaving `from` (it ends first), so such edges change no
 * node's way to `from`: a node one check found not to reach `from` cannot reach it later. The checks therefore share
 * what they saw, and all of them together follow each edge at most once, however many targets the step waits on.
 */
export const cycleCheckFrom = (
  graph: Graph,
  from: string,
  work: GraphWork = { steps: 0 },
): ((to: string) => string[] | undefined) => {
  const next = nextOf(graph);
  const seen = new Set<string>();
  return (to) => {
    const cycle = walkBack(next, from, to, seen, work);
    // The nodes of a cycle found do reach `from`: what was seen no longer stands for "cannot".
    if (cycle) seen.clear();
    return cycle;
  };
};

/** One edge added to plain edges: a copy (for a single change; a call adding many builds a DependencyGraph). */
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
