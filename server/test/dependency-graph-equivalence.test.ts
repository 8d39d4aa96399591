import type { PlanModeStep } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import type { Edge } from '../src/core/dependencies/graph.ts';
import { firstClosingEdge } from '../src/core/dependencies/closing-edge.ts';
import { cycleCheckFrom } from '../src/core/dependencies/graph.ts';
import { checkPlanSteps } from '../src/core/plan-mode/build-plan.ts';

/**
 * The one-pass checks of many edges (closing-edge.ts, build-plan.ts) and the shared walk of one step's targets give
 * exactly the answers the per-edge checks they replaced gave: the same first closing edge, the same cycle, the same
 * message, on random graphs and plans.
 */

/** The checks as they were: one recursive walk per edge, the graph copied per edge (small graphs only). */
const reference = {
  findCycle: (edges: Record<string, string[]>, from: string, to: string): string[] | undefined => {
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
  },
  addEdge: (edges: Record<string, string[]>, from: string, to: string) => {
    const next = Object.fromEntries(Object.entries(edges).map(([k, v]) => [k, [...v]]));
    const list = next[from] ?? (next[from] = []);
    if (!list.includes(to)) list.push(to);
    return next;
  },
  firstClosingEdge(base: Record<string, string[]>, added: readonly Edge[]) {
    let graph = base;
    for (const [index, edge] of added.entries()) {
      const cycle = this.findCycle(graph, edge.from, edge.to);
      if (cycle) return { index, edge, cycle };
      graph = this.addEdge(graph, edge.from, edge.to);
    }
    return undefined;
  },
};

/** A small deterministic generator (mulberry32), so a failing case can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

describe('exactly the answers of the per-edge check', () => {
  it('names the same first closing edge and the same cycle, on 3,000 random graphs', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const next = random(seed);
      const nodes = 2 + Math.floor(next() * 12);
      const pick = () => `v${Math.floor(next() * nodes)}`;
      // A base that may hold cycles of its own (legacy data): only a cycle through an added edge counts.
      const base: Record<string, string[]> = {};
      for (let e = Math.floor(next() * nodes * 1.5); e > 0; e--) {
        const [from, to] = [pick(), pick()];
        base[from] = [...new Set([...(base[from] ?? []), to])];
      }
      const added = Array.from({ length: 1 + Math.floor(next() * 10) }, () => ({ from: pick(), to: pick() }));
      expect(firstClosingEdge(base, added), `seed ${seed}`).toEqual(reference.firstClosingEdge(base, added));
    }
  });

  it('refuses the same plan_exit plans with the same message, on 2,000 random plans', () => {
    // checkPlanSteps as it was: each dependency checked, then its cycle check, in order.
    const before = (steps: readonly PlanModeStep[]): string | undefined => {
      const ids = new Set(steps.map((s) => s.id));
      let edges: Record<string, string[]> = {};
      for (const step of steps)
        for (const dep of step.depends_on ?? []) {
          if (dep === step.id) return `self ${step.id}`;
          if (!ids.has(dep)) return `unknown ${step.id} ${dep}`;
          const cycle = reference.findCycle(edges, String(step.id), String(dep));
          if (cycle) return `cycle (${cycle.join(' → ')})`;
          edges = reference.addEdge(edges, String(step.id), String(dep));
        }
      return undefined;
    };
    const now = (steps: readonly PlanModeStep[]): string | undefined => {
      try {
        checkPlanSteps(steps);
        return undefined;
      } catch (err) {
        const { message } = err as Error;
        const self = /step (\d+) cannot depend on itself/.exec(message);
        if (self) return `self ${self[1]}`;
        const unknown = /step (\d+) depends_on (\d+), which is not a step/.exec(message);
        if (unknown) return `unknown ${unknown[1]} ${unknown[2]}`;
        return /(cycle \([^)]*\))/.exec(message)?.[1] ?? message;
      }
    };
    for (let seed = 1; seed <= 2000; seed++) {
      const next = random(seed);
      const count = 1 + Math.floor(next() * 8);
      // Ids may repeat, and a dependency may name a missing id (count + 1) or the step itself.
      const steps: PlanModeStep[] = Array.from({ length: count }, (_, i) => ({
        id: next() < 0.2 ? 1 + Math.floor(next() * count) : i + 1,
        description: 'd',
        depends_on: Array.from(
          { length: Math.floor(next() * 4) },
          () => 1 + Math.floor(next() * (count + (next() < 0.05 ? 1 : 0))),
        ),
      }));
      expect(now(steps), `seed ${seed}: ${JSON.stringify(steps)}`).toEqual(before(steps));
    }
  });

  it('answers each target of one waiting step as its own walk would, on 2,000 random graphs', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const next = random(seed);
      const nodes = 2 + Math.floor(next() * 12);
      const pick = () => `v${Math.floor(next() * nodes)}`;
      let graph: Record<string, string[]> = {};
      for (let e = Math.floor(next() * nodes * 1.5); e > 0; e--) graph = reference.addEdge(graph, pick(), pick());
      const from = pick();
      const check = cycleCheckFrom(graph, from);
      // Later targets see the edges added for the earlier ones, as the per-edge check saw them.
      let grown = graph;
      for (let t = 0; t < 6; t++) {
        const to = pick();
        const expected = reference.findCycle(grown, from, to);
        expect(check(to), `seed ${seed}, target ${t}`).toEqual(expected);
        if (expected) break;
        grown = reference.addEdge(grown, from, to);
      }
    }
  });
});
