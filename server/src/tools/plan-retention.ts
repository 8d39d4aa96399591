import type { Plan, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES, folderOf } from '@planhub/shared';
import { finishedPlansPastRetention, withoutPlans } from '../core/agents/retention.ts';
import { pendingNode, stepNode } from '../core/dependencies/nodes.ts';
import { assemblePlan } from '../core/plans/plan-split.ts';
import { documents } from '../store/documents/documents.ts';
import { planDocuments } from '../store/documents/plan-documents.ts';
import { counterKeys, docKeys, hashKeys, setKeys, zsetKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { giveUpWaits, releaseWaiters } from './dependents.ts';
import { indexesWrittenBy, loadAgent } from './plan-access.ts';
import { loadWaitersOf } from './step-waiters.ts';

/**
 * Plans one commit removes at most. An index that grew before retention existed (thousands of plans) sheds its
 * backlog over its next writes, this many plans each, instead of in one commit that would hold Redis for the
 * whole deletion.
 */
export const RETENTION_BATCH = 200;

/**
 * Retention of finished plans: after a call's body, every agent index it wrote (a plan appeared, finished or, for
 * seed 004, changed) drops the finished plans past the `kept` newest, and their documents go in the same commit.
 *
 * Why removing a finished plan breaks no wait: a plan ends `failed` or `cancelled` only after its open steps were
 * skipped, and a step that ended (then or earlier) settled its dependents in the commit that ended it
 * (settleDependents): its waiters document, its own outstanding set, edges and received outputs are gone, and each
 * step of another plan that waited on it was delivered to. A rejected plan's steps were released as skipped when it
 * was rejected (releaseRejected), and a wait registered on a finished plan resolves at once (endedOutcome), so none is
 * added later. The exception is a plan *completed* with steps still open (completePlan allows it and leaves them as
 * they were): such a step may still have waiters, and may itself still wait. Its removal settles both here as its
 * end would have: its waiters resolve as skipped, its own waits are given up (it leaves the waiter lists of the
 * steps it waited on, and their counts).
 *
 * A plan's `awaited:` note (waits on steps it never got) goes with it. Every end of a plan releases and deletes the
 * note (settlePlanEnd), so a finished plan has one only if an earlier version ended it without: such waits are
 * released here as that end would have, so nothing waits on a plan that no longer exists.
 */
export const applyRetention = async (tx: Tx, kept: number, now: string): Promise<void> => {
  for (const agentId of [...indexesWrittenBy(tx)]) await pruneAgent(tx, agentId, kept, now);
};

interface Candidate {
  plan: Plan;
  /** The steps named in its `awaited:` note, when it has one. */
  awaited: readonly string[] | undefined;
}

/** The candidates as stored: a plan, `missing` (already gone) or `unreadable` (corrupt: kept for an operator). */
const loadCandidates = async (
  tx: Tx,
  planIds: readonly string[],
): Promise<Array<Candidate | 'missing' | 'unreadable'>> => {
  // Checked: the removal deletes a note that is there (and no wait is added to a finished plan's note).
  const raws = await tx.getMany([...planIds.map(docKeys.plan), ...planIds.map(docKeys.awaitedSteps)]);
  const notes = planIds.map((id, i) => {
    try {
      return { step_ids: documents.awaitedSteps.decode(docKeys.awaitedSteps(id), raws[planIds.length + i])?.step_ids };
    } catch {
      return 'unreadable' as const;
    }
  });
  const roots = planIds.map((id, i) => {
    if (notes[i] === 'unreadable') return 'unreadable' as const;
    try {
      return planDocuments.planRoot.decode(docKeys.plan(id), raws[i]);
    } catch {
      return 'unreadable' as const;
    }
  });
  const stepKeys = roots.map((root, i) =>
    typeof root === 'object' && root.layout === 'header'
      ? root.header.step_ids.map((s) => docKeys.planStep(planIds[i] ?? '', s))
      : [],
  );
  // Unchecked: a finished plan's steps no longer change, and a change that reopens one writes the header (checked).
  const stepRaws = await tx.getUnchecked(stepKeys.flat());
  let at = 0;
  return roots.map((root, i) => {
    const keys = stepKeys[i] ?? [];
    const docs = stepRaws.slice(at, (at += keys.length));
    const note = notes[i];
    if (root === undefined) return 'missing';
    if (root === 'unreadable' || note === 'unreadable') return 'unreadable';
    if (root.layout === 'whole') return { plan: root.plan, awaited: note?.step_ids };
    try {
      const plan = assemblePlan(
        root.header,
        docs.map((raw, j) => planDocuments.planStep.decode(keys[j] ?? '', raw) ?? undefined),
      );
      return { plan, awaited: note?.step_ids };
    } catch {
      return 'unreadable';
    }
  });
};

const waitsOnSomething = (step: Step) => (step.depends_on ?? []).length > 0 || (step.blocked_by ?? []).length > 0;

/**
 * Deletes everything stored for the plan alone: header, steps, briefs, waiter count, per-step dependency state, the
 * note of awaited steps.
 */
const deletePlan = (tx: Tx, { plan, awaited }: Candidate): void => {
  tx.delete(docKeys.plan(plan.plan_id));
  if (awaited !== undefined) tx.delete(docKeys.awaitedSteps(plan.plan_id));
  for (const step of plan.steps) {
    tx.delete(docKeys.planStep(plan.plan_id, step.id));
    if (!waitsOnSomething(step)) continue;
    const node = stepNode(plan.plan_id, step.id);
    tx.delete(docKeys.edgeClock(node));
    tx.op(
      { op: 'del', kind: 'set', key: setKeys.outstanding(node) },
      { op: 'del', kind: 'set', key: setKeys.edges(node) },
      { op: 'del', kind: 'hash', key: hashKeys.received(node) },
      { op: 'srem', key: setKeys.edges(pendingNode(plan.agent_id, step.id)), members: [node] },
    );
  }
  tx.op(
    { op: 'del', kind: 'hash', key: hashKeys.stepBriefs(plan.plan_id) },
    { op: 'del', kind: 'zset', key: zsetKeys.stepsByStatus(plan.plan_id) },
    { op: 'del', kind: 'counter', key: counterKeys.waitersOn(plan.plan_id) },
    { op: 'del', kind: 'set', key: setKeys.waitersOn(plan.plan_id) },
  );
  if (plan.working_dir !== undefined) {
    // Listed under the folder it names since round 30, and under the text it was written as before then.
    const folder = folderOf(plan.working_dir);
    for (const dir of new Set([folder, plan.working_dir]))
      tx.op({ op: 'hdel', key: hashKeys.workingDir(dir), fields: [plan.plan_id] });
  }
};

const pruneAgent = async (tx: Tx, agentId: string, kept: number, now: string): Promise<void> => {
  const agent = await loadAgent(tx, agentId);
  const candidates = finishedPlansPastRetention(agent, { kept, batch: RETENTION_BATCH });
  if (candidates.length === 0) return;
  const stored = await loadCandidates(tx, candidates);
  // A plan whose steps' sets this commit already changes (a delivery to a step of it, say) stays for a later write:
  // deleting those sets in the same commit would contradict the change.
  const busy = tx.changedSets();
  const touched = (node: string) =>
    busy.byOps.has(setKeys.outstanding(node)) || busy.byFanIns.has(setKeys.outstanding(node));
  const removed = new Map<string, Candidate>();
  const gone = new Set<string>();
  for (const [i, planId] of candidates.entries()) {
    const candidate = stored[i];
    if (candidate === 'missing') gone.add(planId);
    if (typeof candidate !== 'object') continue;
    const { plan } = candidate;
    // The stored status decides, whatever the index says: an unfinished plan is never removed.
    if (FINISHED_PLAN_STATUSES.has(plan.status) && !plan.steps.some((s) => touched(stepNode(planId, s.id))))
      removed.set(planId, candidate);
  }
  if (removed.size === 0 && gone.size === 0) return;
  const open = [...removed.values()].flatMap(({ plan, awaited }) => [
    ...plan.steps
      .filter((s) => !ENDED_STEP_STATUSES.has(s.status))
      .map((step) => ({ plan, step, skipped: { ...step, status: 'skipped' as const, result: `plan ${plan.status}` } })),
    ...(awaited ?? []).filter((id) => !plan.steps.some((s) => s.id === id)).map((id) => neverAdded(plan, id)),
  ]);
  const waiters = await loadWaitersOf(
    tx,
    open.map(({ plan, step }) => stepNode(plan.plan_id, step.id)),
  );
  for (const [i, { plan, step, skipped }] of open.entries()) {
    if (waitsOnSomething(step)) await giveUpWaits(tx, plan, step);
    await releaseWaiters(tx, plan, skipped, waiters[i] ?? [], now, (w) => {
      const node = stepNode(w.plan_id, w.step_id);
      return !removed.has(w.plan_id) && !busy.byOps.has(setKeys.outstanding(node));
    });
  }
  // The edge clocks go too, read first: a delete of a document never read is checked against its absence.
  await tx.getUnchecked(
    [...removed.values()].flatMap(({ plan }) =>
      plan.steps.filter(waitsOnSomething).map((step) => docKeys.edgeClock(stepNode(plan.plan_id, step.id))),
    ),
  );
  for (const candidate of removed.values()) deletePlan(tx, candidate);
  tx.put(docKeys.agent(agentId), withoutPlans(agent, new Set([...removed.keys(), ...gone])));
};

/** A step the plan never got, as its waiters are told of it (as tools/awaited-steps.ts tells them at the plan's end). */
const neverAdded = (plan: Plan, id: string) => {
  const step: Step = { id, step_id: id, sequence: 0, description: '', status: 'skipped' };
  return { plan, step, skipped: { ...step, result: `plan ${plan.status} without a step ${id}` } };
};
