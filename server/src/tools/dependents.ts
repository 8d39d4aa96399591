import type { Plan, Step, Waiter } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES } from '@planhub/shared';
import { stepNode } from '../core/dependencies/attach.ts';
import { dependencyNode, pendingNode } from '../core/dependencies/nodes.ts';
import { decideFanIn, isSamePlan, PLAN_ENDED } from '../core/dependencies/fan-in.ts';
import { applyResolution } from '../core/dependencies/resolve.ts';
import { randomId } from '../core/random-id.ts';
import { encodeBrief } from '../core/plans/step-brief.ts';
import type { StoreOp } from '../store/store.ts';
import { docKeys, hashKeys, setKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { encodeReceived, readPlans } from './live-plans.ts';
import { savePlan } from './plan-access.ts';
import { peekWaitingPlans } from './plan-repository.ts';
import { rankOps } from './step-ranks.ts';
import {
  dropWaiters,
  hasWaiterClock,
  loadWaitersOf,
  prefetchWaiters,
  removeWaiter,
  waiterSet,
} from './step-waiters.ts';

/** Stands in a call's answer for a waiter that a fan-in unblocks; the store puts the waiter or null there. */
export type PendingUnblock = string & { readonly pendingUnblock: unique symbol };

export interface Settled {
  /** Waiting steps of the same plan, unblocked by this commit for certain. */
  now: Waiter[];
  /** Waiting steps of other plans: each becomes its waiter if this completion was its last, null otherwise. */
  pending: PendingUnblock[];
}

export const isWaiter = (w: unknown): w is Waiter => typeof w === 'object' && w !== null;

/**
 * Unguessable within this process (a random part drawn once), unique by the counter: a token is replaced in the
 * commit's own text, so it must never occur in what a caller wrote, and need not cost a random draw per delivery.
 */
const tokenSalt = `${randomId()}${randomId()}`;
let tokens = 0;
const token = (what: string) => `@@planhub:${what}:${tokenSalt}${(tokens++).toString(36)}@@`;

type Ended = { agent_id: string; plan_id: string; step: Step };

const briefOps = (waiting: Plan, w: Waiter): StoreOp[] => {
  const step = waiting.steps.find((s) => s.id === w.step_id);
  if (!step) return [];
  const unblocked = { ...step, status: 'pending' as const };
  const fields = { [w.step_id]: encodeBrief(unblocked) };
  return [{ op: 'hset', key: hashKeys.stepBriefs(w.plan_id), fields }, ...rankOps(w.plan_id, [unblocked])];
};

/**
 * Delivers `ended` to the waiting step `w` by the store's fan-in on its outstanding set: the output is recorded,
 * and the delivery that empties the set announces step_unblocked with every output's key. Returns the stand-in of
 * `w` in the call's answer, or undefined when the step no longer waits.
 */
const deliver = (
  tx: Tx,
  waiting: Plan,
  w: Waiter,
  ended: Ended & { member: string },
  now: string,
): PendingUnblock | undefined => {
  const node = stepNode(w.plan_id, w.step_id);
  const keys = token('keys');
  const values = token('values');
  const decision = decideFanIn(waiting, w.step_id, ended, now, { keys, values });
  if (!decision) return undefined;
  const answer = token('unblocked') as PendingUnblock;
  tx.fanIn({
    set: setKeys.outstanding(node),
    member: ended.member,
    record: { hash: hashKeys.received(node), fields: encodeReceived(decision.record) },
    then: {
      reads: [],
      writes: [],
      // The step's brief and rank follow its live state (pending once nothing is outstanding) for its owner's step
      // changes. The header's version moves, so a call of the owner that read the step blocked before this unblock
      // (completePlan listing it as left blocked, say) re-runs and sees it pending: the log's last word on the step
      // is what reads show.
      ops: [...briefOps(waiting, w), { op: 'bump', key: docKeys.plan(w.plan_id) }],
      events: decision.whenLast,
      fills: [
        { token: keys, hash: hashKeys.received(node), as: 'keys' },
        { token: values, hash: hashKeys.received(node), as: 'object' },
      ],
    },
    answer: { token: answer, value: w },
  });
  return answer;
};

/**
 * Steps of the same plan wait through the plan's own `waiters` (one writer: the plan's owner). A waiting step that
 * also waits on other plans is delivered to through its outstanding set like them, so whichever dependency ends
 * last announces it; any other is resolved in place (`target` is mutated; the caller saves it).
 */
const settleSamePlan = async (tx: Tx, target: Plan, step: Step, now: string): Promise<Settled> => {
  const waiters = target.waiters[step.id] ?? [];
  if (waiters.length === 0) return { now: [], pending: [] };
  delete target.waiters[step.id];
  const self = stepNode(target.plan_id, step.id);
  const settled: Settled = { now: [], pending: [] };
  const ended = { agent_id: target.agent_id, plan_id: target.plan_id, step, member: self };
  for (const w of waiters) {
    const node = stepNode(w.plan_id, w.step_id);
    tx.op({ op: 'srem', key: setKeys.edges(node), members: [self] });
    // Written before the per-step layout: another plan's waiter kept here resolves the way it always did.
    const plan = w.plan_id === target.plan_id ? target : ((await readPlans(tx, [w.plan_id]))[0] ?? undefined);
    const waiting = plan?.steps.find((s) => s.id === w.step_id);
    if (!plan || !waiting || waiting.status !== 'blocked') continue;
    if (plan === target && waitsAcross(plan, waiting)) {
      const pending = deliver(tx, plan, w, ended, now);
      if (pending) settled.pending.push(pending);
      continue;
    }
    // Resolved here, so gone from its outstanding set too (a later wait across plans starts from the open ones).
    if (plan === target) tx.op({ op: 'srem', key: setKeys.outstanding(node), members: [self] });
    const events = applyResolution(plan, w.step_id, ended, now);
    if (events.some((e) => e.event_type === 'step_unblocked')) settled.now.push(w);
    tx.emit(...events);
    if (plan !== target) await savePlan(tx, plan);
  }
  return settled;
};

/**
 * Runs inside the transaction that ended `step`: every step waiting on it gets its output in the same commit, so no
 * node can die between them and lose a wake-up. A waiting step of another plan is never written here: the delivery
 * is a fan-in (remove this step from its outstanding set, record the output; the removal that empties the set
 * announces step_unblocked with every output), so K completions feeding one step never conflict. A step that ends
 * while still blocked (its owner gave up on it) drops its outstanding set, so a late delivery cannot revive it.
 */
export const settleDependents = async (tx: Tx, target: Plan, step: Step, now: string): Promise<Settled> => {
  const self = stepNode(target.plan_id, step.id);
  if (waitsOnSomething(step)) {
    // The ended step was read live and is written whole: what it received is in its document now.
    tx.op(
      { op: 'del', kind: 'set', key: setKeys.outstanding(self) },
      { op: 'del', kind: 'hash', key: hashKeys.received(self) },
    );
    await endOwnWaits(tx, target, step);
  }
  const same = await settleSamePlan(tx, target, step, now);
  // Waits named by plan, and waits by agent and step id registered before any plan of this agent had the step.
  const future = pendingNode(target.agent_id, step.id);
  const [byPlan = [], byAgent = []] = await loadWaitersOf(tx, [self, future]);
  // Waiters exist only with their clock; a clock whose waiters all gave up goes too.
  if (hasWaiterClock(tx, self)) dropWaiters(tx, { set: waiterSet(target.plan_id), node: self }, byPlan);
  if (byAgent.length > 0) dropWaiters(tx, { set: waiterSet(undefined), node: future }, byAgent);
  const registered = [...byPlan.map((w) => ({ w, member: self })), ...byAgent.map((w) => ({ w, member: future }))];
  if (registered.length === 0) return same;
  // Read, not checked: a waiting plan's owner may change it meanwhile without this commit conflicting.
  const plans = await peekWaitingPlans(
    tx,
    registered.map(({ w }) => w),
  );
  for (const { w, member } of registered) {
    tx.op({ op: 'srem', key: setKeys.edges(stepNode(w.plan_id, w.step_id)), members: [member] });
    const waiting = plans.get(w.plan_id);
    const ended = { agent_id: target.agent_id, plan_id: target.plan_id, step, member };
    const pending = waiting && deliver(tx, waiting, w, ended, now);
    if (pending) same.pending.push(pending);
  }
  return same;
};

export const waitsOnSomething = (step: Step): boolean =>
  (step.depends_on ?? []).length > 0 || (step.blocked_by ?? []).length > 0;

/**
 * A step that will never be unblocked (it ended, or its plan did) drops its edges and gives its waits on other
 * plans up. Its outstanding set is the caller's: an ended step's goes (settleDependents); a blocked step of a
 * finished plan keeps its set, as it tells which waits were still open, with PLAN_ENDED added, so a target's end that
 * read the waiter list before the give-up and commits after it cannot empty the set, and the fan-in's "last one
 * unblocks" never fires for a plan that already ended.
 */
export const endOwnWaits = async (tx: Tx, plan: Plan, step: Step): Promise<void> => {
  const self = stepNode(plan.plan_id, step.id);
  tx.op(
    { op: 'del', kind: 'set', key: setKeys.edges(self) },
    { op: 'srem', key: setKeys.edges(pendingNode(plan.agent_id, step.id)), members: [self] },
  );
  if (step.status === 'blocked' && FINISHED_PLAN_STATUSES.has(plan.status))
    tx.op({ op: 'sadd', key: setKeys.outstanding(self), members: [PLAN_ENDED] });
  await giveUpWaits(tx, plan, step);
};

/**
 * A step that ends while it still waits gives its waits on other plans up: it leaves each target's waiter list and
 * that list's count (the target plan's waitersPerPlan count, or the workspace's pendingWaiters count for a step no
 * plan had yet), so abandoned waits neither pile up nor count against a plan that is still running. `step.blocked_by`
 * may name dependencies already delivered (a plan read as stored): their lists no longer hold the step.
 */
export const giveUpWaits = async (tx: Tx, plan: Plan, step: Step): Promise<void> => {
  const waiter: Waiter = { agent_id: plan.agent_id, plan_id: plan.plan_id, step_id: step.id };
  // The plan's own steps keep their waiters in the plan itself.
  const open = (step.blocked_by ?? []).filter((d) => d.plan_id !== plan.plan_id);
  if (open.length === 0) return;
  // Every target's waiters in one round trip; removeWaiter then reads them from the transaction.
  await prefetchWaiters(tx, open.map(dependencyNode));
  for (const d of open) await removeWaiter(tx, { set: waiterSet(d.plan_id), node: dependencyNode(d) }, waiter);
};

/**
 * For a step that will never end: one left open in a plan retention removes (a plan completed with the step still
 * open), or one its plan never got before it finished (tools/awaited-steps.ts). The steps of other plans registered
 * on it (`waiters`, its waiters document as read) receive `skipped`, the end it stands for, as a wait registered
 * after its plan finished resolves at once (endedOutcome). The document goes; `deliverTo` may pass over a waiter (its
 * own plan goes in the same commit, or this commit already ends or changes its wait).
 */
export const releaseWaiters = async (
  tx: Tx,
  target: Plan,
  skipped: Step,
  waiters: readonly Waiter[],
  now: string,
  deliverTo: (w: Waiter) => boolean,
): Promise<void> => {
  const self = stepNode(target.plan_id, skipped.id);
  // Waiters exist only with their clock; a clock whose waiters all gave up goes too.
  if (!hasWaiterClock(tx, self)) return;
  tx.delete(docKeys.waiters(self));
  tx.op({ op: 'del', kind: 'hash', key: hashKeys.waiters(self) });
  const ended = { agent_id: target.agent_id, plan_id: target.plan_id, step: skipped, member: self };
  const released = waiters.filter(deliverTo);
  if (released.length === 0) return;
  const plans = await peekWaitingPlans(tx, released);
  for (const w of released) {
    tx.op({ op: 'srem', key: setKeys.edges(stepNode(w.plan_id, w.step_id)), members: [self] });
    const waiting = plans.get(w.plan_id);
    if (waiting) deliver(tx, waiting, w, ended, now);
  }
};

/** Whether a step waits on steps of other plans (then its dependency state lives in per-step keys). */
export const waitsAcross = (plan: Plan, step: Step): boolean =>
  (step.blocked_by ?? []).some((d) => !isSamePlan(plan, d));
