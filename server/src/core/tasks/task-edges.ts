import { fail } from '@planhub/shared';
import type { DependencyEdges, GraphWork } from '../dependencies/graph.ts';
import { firstClosingEdge } from '../dependencies/closing-edge.ts';
import type { Task, TaskDoc } from './task-model.ts';

/** The open "waits on" edges of the list: task → the tasks in its blockedBy. */
export const taskEdges = (doc: TaskDoc): DependencyEdges =>
  Object.fromEntries(Object.values(doc.tasks).map((t) => [t.id, t.blockedBy]));

export interface NewEdge {
  /** The task that waits. */
  waiter: string;
  /** The task it waits on. */
  blocker: string;
  /** The seed's wording for a refusal of this edge. */
  refusal: string;
}

/**
 * Checks every new edge against the graph grown by the edges before it, so a set of edges that only closes a cycle
 * together is refused too. Edges on a completed blocker resolve at once and are left out. Throws before anything is
 * written; returns the edges to store. The refusal names the first edge that closes a cycle, as checking them one at
 * a time would, in work that grows with the list and the new edges, not with their product (`firstClosingEdge`).
 */
export const checkEdges = (doc: TaskDoc, edges: readonly NewEdge[], work?: GraphWork): NewEdge[] => {
  const kept = edges.filter((e) => e.waiter === e.blocker || doc.tasks[e.blocker]?.status !== 'completed');
  const closing = firstClosingEdge(
    taskEdges(doc),
    kept.map((e) => ({ from: e.waiter, to: e.blocker })),
    work,
  );
  if (closing)
    fail('FAILED_PRECONDITION', kept[closing.index]!.refusal, {
      cycle: closing.cycle.map((id) => `#${id}`),
      hint: 'Each task in the cycle would wait on itself forever; drop one of these dependencies.',
    });
  return kept;
};

const addUnique = (list: string[], id: string): boolean => {
  if (list.includes(id)) return false;
  list.push(id);
  return true;
};

/** Stores an edge on both ends (tasks are mutable copies); true when something changed. */
export const linkTasks = (waiter: Task, blocker: Task): boolean => {
  const a = addUnique(waiter.blockedBy, blocker.id);
  const b = addUnique(blocker.blocks, waiter.id);
  return a || b;
};

/** Removes every edge between `id` and `other` (both directions) from `other`; true when something changed. */
export const unlinkFrom = (other: Task, id: string): { changed: string[]; freed: boolean } => {
  const changed: string[] = [];
  const hadBlocker = other.blockedBy.includes(id);
  if (hadBlocker) {
    other.blockedBy = other.blockedBy.filter((x) => x !== id);
    changed.push('blockedBy');
  }
  if (other.blocks.includes(id)) {
    other.blocks = other.blocks.filter((x) => x !== id);
    changed.push('blocks');
  }
  return { changed, freed: hadBlocker && other.blockedBy.length === 0 && other.status !== 'completed' };
};
