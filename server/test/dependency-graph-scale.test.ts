import type { Plan, PlanModeStep } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachDependencies, stepNode } from '../src/core/dependencies/attach.ts';
import type { DependencyEdges, Edge, GraphWork } from '../src/core/dependencies/graph.ts';
import { firstClosingEdge } from '../src/core/dependencies/closing-edge.ts';
import { findCycle } from '../src/core/dependencies/graph.ts';
import { checkPlanSteps } from '../src/core/plan-mode/build-plan.ts';
import { newPlan } from '../src/core/plans/plan-factory.ts';
import { createTask } from '../src/core/tasks/task-create.ts';
import { checkEdges, type NewEdge } from '../src/core/tasks/task-edges.ts';
import type { TaskDoc } from '../src/core/tasks/task-model.ts';
import { emptyTaskDoc } from '../src/core/tasks/task-model.ts';
import { errorOf } from './support/error-of.ts';

/**
 * The cycle checks at the sizes a call can reach, counted in work (edges followed and added, and whole-graph
 * copies), never timed: a chain of 100,000 steps is walked without a recursion as deep, and a call adding k edges to
 * a graph of E edges does O(E + k) work, not O(k × E).
 */

const NOW = '2026-01-01T00:00:00.000Z';

/** `n0 ← n1 ← … ← n(n-1)`: each node waits on the one before it. */
const chain = (n: number, name = (i: number) => `n${i}`): Record<string, string[]> => {
  const edges: Record<string, string[]> = {};
  for (let i = 1; i < n; i++) edges[name(i)] = [name(i - 1)];
  return edges;
};

const edgeCount = (edges: DependencyEdges) => Object.values(edges).reduce((sum, to) => sum + to.length, 0);

/** Counts the whole-graph copies a call makes: each copied the graph through Object.entries + Object.fromEntries. */
const countCopies = () => {
  const entries = vi.spyOn(Object, 'entries');
  const fromEntries = vi.spyOn(Object, 'fromEntries');
  return () => entries.mock.calls.length + fromEntries.mock.calls.length;
};
afterEach(() => vi.restoreAllMocks());

const thrown = (fn: () => unknown): PlanHubError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof PlanHubError) return err;
    throw err;
  }
  throw new Error('expected an error');
};

const running = (planId: string, agentId: string, steps: number): Plan => ({
  ...newPlan({
    plan_id: planId,
    workspace: 'ws',
    agent_id: agentId,
    title: planId,
    dialect: '000',
    steps: Array.from({ length: steps }, (_, i) => ({ description: `s${i}` })),
    now: NOW,
  }),
  status: 'in_progress',
});

describe('a dependency chain of 100,000 steps', () => {
  const n = 100_000;
  const edges = chain(n);

  it('is walked end to end without a recursion as deep (the cycle it would close is named whole)', () => {
    const work: GraphWork = { steps: 0 };
    // n0 waiting on the chain's tail closes a cycle through every node.
    const cycle = findCycle(edges, 'n0', `n${n - 1}`, work);
    expect(cycle).toHaveLength(n + 1);
    expect(cycle?.slice(0, 3)).toEqual(['n0', `n${n - 1}`, `n${n - 2}`]);
    expect(cycle?.at(-1)).toBe('n0');
    expect(work.steps).toBe(n - 1);
    // A fresh node waiting on the tail walks the same chain and finds no cycle.
    expect(findCycle(edges, 'other', `n${n - 1}`)).toBeUndefined();
  });

  it('is walked by every check a call makes: attach, plans, tasks', () => {
    // A step waiting on the chain's tail walks all of it (the node's stack overflowed past about 7,000 steps).
    const stepChain = chain(n, (i) => stepNode(`p${i}`, 'step_1'));
    const tail = { plan: running(`p${n - 1}`, 't', 1), step_id: 'step_1' };
    const work: GraphWork = { steps: 0 };
    const out = attachDependencies(running('mine', 'me', 1), 'step_1', [tail], stepChain, NOW, work);
    expect(out.added).toHaveLength(1);
    expect(work.steps).toBeGreaterThanOrEqual(2 * (n - 1));
    // The chain's head waiting on its tail closes a cycle through all of it.
    const refusal = errorOf(() => attachDependencies(running('p0', 'h', 1), 'step_1', [tail], stepChain, NOW));
    expect(refusal).toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(refusal.message).toMatch(/h:step_1 waiting on t:step_1 would close a dependency cycle/);

    // The strongly connected components walk a chain as long, and find the one edge that closes it.
    const added: Edge[] = Object.entries(edges).map(([from, [to]]) => ({ from, to: to! }));
    expect(firstClosingEdge({}, added)).toBeUndefined();
    const closing = firstClosingEdge({}, [...added, { from: 'n0', to: `n${n - 1}` }]);
    expect(closing?.index).toBe(added.length);
    expect(closing?.cycle).toHaveLength(n + 1);
  });
});

describe('work of one call, by its size', () => {
  it('builds a 200-step plan with 18,675 dependencies in work linear in them, copying no graph per edge', () => {
    const D = 150;
    const steps: PlanModeStep[] = Array.from({ length: 200 }, (_, i) => ({
      id: i + 1,
      description: `s${i}`,
      depends_on: Array.from({ length: Math.min(i, D) }, (_, k) => i - k),
    }));
    const edges = steps.reduce((sum, s) => sum + (s.depends_on?.length ?? 0), 0);
    expect(edges).toBe(18_675);
    const copies = countCopies();
    const work: GraphWork = { steps: 0 };
    checkPlanSteps(steps, work);
    // Each edge is added once and followed once by the components' walk (the old check walked up to the whole
    // graph per edge and copied it per edge: 18,675 copies of up to 200 lists).
    expect(copies()).toBeLessThanOrEqual(2);
    expect(work.steps).toBeGreaterThanOrEqual(edges);
    expect(work.steps).toBeLessThanOrEqual(3 * edges);

    // The same plan with the last step waiting on a step that does not exist: refused, for the same work.
    const refused = structuredClone(steps);
    refused[199]!.depends_on!.push(999);
    const refusedWork: GraphWork = { steps: 0 };
    expect(errorOf(() => checkPlanSteps(refused, refusedWork)).message).toMatch(/depends_on 999, which is not a step/);
    expect(refusedWork.steps).toBeLessThanOrEqual(3 * edges);

    // And with a cycle at the very end: found by a binary search over the prefixes, O(E log E) at worst.
    const cyclic = structuredClone(steps);
    cyclic[0]!.depends_on = [200];
    cyclic.push(cyclic.shift()!);
    const cyclicWork: GraphWork = { steps: 0 };
    expect(errorOf(() => checkPlanSteps(cyclic, cyclicWork)).message).toMatch(
      /the dependencies form a cycle \(1 → 200/,
    );
    expect(cyclicWork.steps).toBeLessThanOrEqual(3 * edges * Math.ceil(Math.log2(edges) + 1));
  });

  it('adds 200 blockers to a task among 1,000 in work linear in the list, copying no graph per edge', () => {
    let doc: TaskDoc = emptyTaskDoc();
    const ctx = { workspace: 'ws', agent_id: 'main', now: NOW };
    for (let i = 1; i <= 1000; i++) doc = createTask(doc, { subject: `t${i}`, description: '' }, ctx, 1000).doc;
    // Task i waits on up to 20 tasks before it: 19,790 edges already.
    for (let i = 2; i <= 1000; i++)
      for (let k = Math.max(1, i - 20); k < i; k++) {
        doc.tasks[String(i)]!.blockedBy.push(String(k));
        doc.tasks[String(k)]!.blocks.push(String(i));
      }
    const existing = Object.values(doc.tasks).reduce((sum, t) => sum + t.blockedBy.length, 0);
    const edge = (waiter: number, blocker: number): NewEdge => ({
      waiter: String(waiter),
      blocker: String(blocker),
      refusal: `#${waiter} on #${blocker} would create a cyclic dependency`,
    });
    const adds = Array.from({ length: 200 }, (_, k) => edge(900, k + 1));
    const copies = countCopies();
    const work: GraphWork = { steps: 0 };
    expect(checkEdges(doc, adds, work)).toHaveLength(200);
    // One copy of the list's edges (taskEdges), none per edge.
    expect(copies()).toBeLessThanOrEqual(2);
    expect(work.steps).toBeLessThanOrEqual(3 * (existing + adds.length));

    // The 200th closes a cycle (#901 waits on #900 already): named after the 199 before it were checked.
    const refusedWork: GraphWork = { steps: 0 };
    const refusal = thrown(() => checkEdges(doc, [...adds.slice(0, 199), edge(900, 901)], refusedWork));
    expect(refusal.message).toBe('#900 on #901 would create a cyclic dependency');
    expect(refusal.details).toMatchObject({ cycle: ['#900', '#901', '#900'] });
    // Only that edge lies on a cycle of the whole graph, so no search over the others is needed.
    expect(refusedWork.steps).toBeLessThanOrEqual(4 * (existing + 200));
  });

  it('makes a step wait on 200 steps of a 5,000-step chain in work linear in the chain, copying no graph per edge', () => {
    const plans = Array.from({ length: 25 }, (_, p) => running(`p${p}`, `a${p}`, 200));
    const edges: Record<string, string[]> = {};
    for (let i = 1; i < 5000; i++) {
      const at = (j: number) => stepNode(`p${Math.floor(j / 200)}`, `step_${(j % 200) + 1}`);
      edges[at(i)] = [at(i - 1)];
    }
    const targets = Array.from({ length: 200 }, (_, k) => ({ plan: plans[24 - (k % 3)]!, step_id: `step_${200 - k}` }));
    const copies = countCopies();
    const work: GraphWork = { steps: 0 };
    const out = attachDependencies(running('w', 'w', 1), 'step_1', targets, edges, NOW, work);
    expect(out.added).toHaveLength(200);
    // The 200 checks share one walk: each edge of the chain followed once (the old check walked the chain and
    // copied the graph once per target).
    expect(copies()).toBeLessThanOrEqual(4);
    expect(work.steps).toBeLessThanOrEqual(3 * (edgeCount(edges) + targets.length));
  });
});
