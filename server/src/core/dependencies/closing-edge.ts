import type { DependencyEdges, Edge, GraphWork } from './graph.ts';

const NONE: readonly string[] = [];

/**
 * A graph numbered for the components' walks: node `v`'s targets are `targets[v]`, in order, each once, and
 * `joined[v][j]` says when its j-th edge joined (-1: the base's, else the index of its first occurrence in `added`).
 */
interface Numbered {
  ids: ReadonlyMap<string, number>;
  names: string[];
  targets: number[][];
  joined: number[][];
  added: Array<{ from: number; to: number }>;
}

const numbered = (base: DependencyEdges, added: readonly Edge[], work: GraphWork): Numbered => {
  const ids = new Map<string, number>();
  const names: string[] = [];
  const rows: Array<Map<number, number>> = [];
  const idOf = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      ids.set(name, id);
      names.push(name);
      rows.push(new Map());
    }
    return id;
  };
  const add = (from: string, to: string, when: number) => {
    work.steps++;
    const [f, t] = [idOf(from), idOf(to)];
    const row = rows[f]!;
    if (!row.has(t)) row.set(t, when);
    return { from: f, to: t };
  };
  for (const from of Object.keys(base)) for (const to of base[from] ?? NONE) add(from, to, -1);
  const edges = added.map((e, i) => add(e.from, e.to, i));
  return {
    ids,
    names,
    targets: rows.map((row) => [...row.keys()]),
    joined: rows.map((row) => [...row.values()]),
    added: edges,
  };
};

/**
 * Tarjan's strongly connected components of the nodes reachable from `roots`, on stacks of its own, following only
 * the edges `allowed` lets through (`from`, and the position of the edge among its targets): each node's component,
 * -1 for the nodes not reached.
 */
const components = (
  graph: Numbered,
  roots: Iterable<number>,
  allowed: (from: number, at: number) => boolean,
  work: GraphWork,
): Int32Array => {
  const size = graph.names.length;
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const component = new Int32Array(size).fill(-1);
  const onStack = new Uint8Array(size);
  const stack = new Int32Array(size);
  const open = new Int32Array(size);
  const cursor = new Int32Array(size);
  let [stacked, opened, count, found] = [0, 0, 0, 0];
  const enter = (v: number) => {
    index[v] = low[v] = count++;
    stack[stacked++] = v;
    onStack[v] = 1;
    cursor[v] = 0;
    open[opened++] = v;
  };
  for (const root of roots) {
    if (index[root]! >= 0) continue;
    enter(root);
    while (opened > 0) {
      const v = open[opened - 1]!;
      const targets = graph.targets[v]!;
      const at = cursor[v]!;
      if (at < targets.length) {
        cursor[v] = at + 1;
        work.steps++;
        if (!allowed(v, at)) continue;
        const w = targets[at]!;
        if (index[w]! < 0) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      opened--;
      if (low[v] === index[v]) {
        let w: number;
        do {
          w = stack[--stacked]!;
          onStack[w] = 0;
          component[w] = found;
        } while (w !== v);
        found++;
      }
      if (opened > 0) {
        const parent = open[opened - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
    }
  }
  return component;
};

/**
 * Of `added`, taken in order and each checked against `base` grown by the ones before it, the first edge that would
 * close a cycle, with that cycle as `findCycle` names it then; undefined when none does. Exactly what checking and
 * adding the edges one at a time finds, without a walk per edge. An edge closes a cycle when added exactly when it
 * lies on a cycle of the graph holding it and the edges before it (a cycle through added edges is closed by the last
 * of them), which the strongly connected components of that graph answer. One pass over them when no edge closes a
 * cycle. When some do, the first is among the edges on a cycle of the whole graph (the candidates), and a binary
 * search over the candidates finds it, each pass confined to the components that hold them: O((V + E) log k) at
 * worst, never O(k (V + E)).
 */
export const firstClosingEdge = (
  base: DependencyEdges,
  added: readonly Edge[],
  work: GraphWork = { steps: 0 },
): { index: number; edge: Edge; cycle: string[] } | undefined => {
  if (added.length === 0) return undefined;
  const graph = numbered(base, added, work);
  const onCycle = (component: Int32Array, { from, to }: { from: number; to: number }) =>
    from === to || component[from] === component[to];

  const whole = components(
    graph,
    graph.added.map((e) => e.from),
    () => true,
    work,
  );
  const candidates = [...graph.added.keys()].filter((i) => onCycle(whole, graph.added[i]!));
  if (candidates.length === 0) return undefined;
  // A cycle of a smaller graph lies within one component of the whole: no pass leaves the candidates' components.
  const closesBy = (last: number): boolean => {
    const upTo = candidates.filter((i) => i <= last);
    const component = components(
      graph,
      upTo.map((i) => graph.added[i]!.from),
      (from, at) => graph.joined[from]![at]! <= last && whole[from] === whole[graph.targets[from]![at]!],
      work,
    );
    return upTo.some((i) => onCycle(component, graph.added[i]!));
  };
  let lo = 0;
  let hi = candidates.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (closesBy(candidates[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  const index = candidates[lo]!;
  const edge = graph.added[index]!;
  const cycle = pathBack(graph, edge.from, edge.to, (v, at) => graph.joined[v]![at]! < index, work);
  return { index, edge: added[index]!, cycle: cycle.map((v) => graph.names[v]!) };
};

/**
 * `walkBack` on a numbered graph, following only the edges `allowed` lets through: the path `from → to → … → from`,
 * found as a recursive walk taking each node's targets in order would find it first. Only called when there is one.
 */
const pathBack = (
  graph: Numbered,
  from: number,
  to: number,
  allowed: (v: number, at: number) => boolean,
  work: GraphWork,
): number[] => {
  if (from === to) return [from, to];
  const seen = new Uint8Array(graph.names.length);
  const cursor = new Int32Array(graph.names.length);
  const path = [to];
  seen[to] = 1;
  while (path.length > 0) {
    const v = path[path.length - 1]!;
    const targets = graph.targets[v]!;
    const at = cursor[v]!;
    if (at >= targets.length) {
      path.pop();
      continue;
    }
    cursor[v] = at + 1;
    work.steps++;
    if (!allowed(v, at)) continue;
    const w = targets[at]!;
    if (w === from) return [from, ...path, from];
    if (seen[w]) continue;
    seen[w] = 1;
    path.push(w);
  }
  throw new Error('pathBack: no path, though the components found a cycle');
};
