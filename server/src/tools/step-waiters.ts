import type { Waiter } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { byBytes } from '../core/byte-order.ts';
import { isPendingNode } from '../core/dependencies/nodes.ts';
import { corruptDocument } from '../store/documents/define.ts';
import { documents } from '../store/documents/documents.ts';
import { keyPattern } from '../store/follow-read.ts';
import { docKeys, hashKeys, setKeys } from '../store/keys.ts';
import { boundRefusal } from '../store/transact.ts';
import type { Tx } from '../store/transaction.ts';

/**
 * Who waits on one step from other plans, by the target's node. Each waiter is a field of the hash `waiters:<node>`
 * (its JSON-encoded [agent_id, plan_id, step_id]), added and removed by commutative operations, so K steps registering
 * on one step at once never conflict with one another. Every registration bumps the document `waiters:<node>`,
 * which whoever settles the waiters (the target's end, retention, a plan's end for a step it never got) reads
 * checked: a registration committed between that read and its commit makes it re-run and see the registration. The
 * other way round, a registration read the target step checked, which the end writes. A removal needs no bump (see
 * removeWaiter).
 *
 * The document's value is the list stored before the hash existed (round 13's layout): read beside the hash and
 * settled with it, never added to.
 */
interface Entries {
  /** Waiters of the stored list (the earlier layout). */
  listed: readonly Waiter[];
  /** Waiters of the hash, in the byte order of their fields. */
  hashed: readonly Waiter[];
}

const fieldOf = (w: Waiter): string => JSON.stringify([w.agent_id, w.plan_id, w.step_id]);

const sameWaiter = (a: Waiter, b: Waiter) =>
  a.agent_id === b.agent_id && a.plan_id === b.plan_id && a.step_id === b.step_id;

const isText = (x: unknown): x is string => typeof x === 'string';

/** A hash field back as its waiter; anything else is a corrupt entry, named by its hash. */
const waiterOf = (node: string, field: string): Waiter => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(field);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !(parsed as unknown[]).every(isText))
    throw corruptDocument(hashKeys.waiters(node), `waiters: the field ${JSON.stringify(field)} is not a waiter`);
  const [agent_id = '', plan_id = '', step_id = ''] = parsed as string[];
  return { agent_id, plan_id, step_id };
};

/** Every waiter once: one in both the list and the hash (registered again after the upgrade) counts once. */
const all = (e: Entries): Waiter[] => [...e.listed, ...e.hashed.filter((w) => !e.listed.some((l) => sameWaiter(l, w)))];

/**
 * Reads who waits on each of `nodes`, checked: the read of whoever settles waiters, which conflicts with every
 * registration committed since. Registrations and removals never read the hash, so they never conflict with one
 * another (see addWaiters, removeWaiter). The clocks come first; a hash is read only when its clock has a version
 * (every hset bumps it, and the clock goes only with its hash), in one more round trip unless it was prefetched.
 */
const loadEntries = async (tx: Tx, nodes: readonly string[]): Promise<Entries[]> => {
  const keys = nodes.map(docKeys.waiters);
  const raws = await tx.getMany(keys);
  const hashes = nodes.map((node) => (hasWaiterClock(tx, node) ? hashKeys.waiters(node) : undefined));
  await tx.prefetch({ hashes: hashes.filter((key) => key !== undefined) });
  const entries = await Promise.all(hashes.map((key) => (key === undefined ? Promise.resolve({}) : tx.hash(key))));
  return nodes.map((node, i) => {
    const fields = Object.keys(entries[i] ?? {});
    if (fields.length > 1) fields.sort(byBytes);
    return {
      listed: listedOf(keys[i] ?? '', raws[i]),
      hashed: fields.map((f) => waiterOf(node, f)),
    };
  });
};

const listedOf = (key: string, raw: unknown): readonly Waiter[] => documents.waiters.decode(key, raw)?.waiters ?? [];

/** What a waiter's field names: its plan's header and its step (peekWaitingPlans reads both). */
const waitingPlanKeys = [keyPattern(docKeys.plan, 1), keyPattern(docKeys.planStep, 1, 2)];

/**
 * The keys a step's end prefetches with its step to settle who waits on it (see `loadWaitersOf`): both clocks, and the
 * hash of the step's own node, following its fields to each waiter's plan header and step, so that delivering to
 * them needs no round trip of its own. The agent-wide node's hash is read only when its clock exists: a wait
 * registered before any plan of the agent had the step is rare, and that read would cost every step end.
 */
export const waiterReadKeys = (step: string, agentWide: string) => ({
  docs: [docKeys.waiters(step), docKeys.waiters(agentWide)],
  hashes: [hashKeys.waiters(step)],
  follow: [{ hash: hashKeys.waiters(step), keys: waitingPlanKeys }],
});

/** Reads what `removeWaiter` needs for `nodes` (unchecked: a list of the earlier layout), in one round trip. */
export const prefetchWaiters = async (tx: Tx, nodes: readonly string[]): Promise<void> => {
  await tx.getUnchecked(nodes.map(docKeys.waiters));
};

/** Who waits on each of `nodes`, read checked (for settling them: see loadEntries), in one round trip. */
export const loadWaitersOf = async (tx: Tx, nodes: readonly string[]): Promise<Waiter[][]> =>
  (await loadEntries(tx, nodes)).map(all);

/**
 * Whether the step `node` has a waiters' clock as this attempt read it (loadWaitersOf first): one stays after its
 * waiters all gave up, and goes when the step is settled, like its waiters.
 */
export const hasWaiterClock = (tx: Tx, node: string): boolean => (tx.versionRead(docKeys.waiters(node)) ?? 0) > 0;

/**
 * The bounded set a waiter is counted in: the target plan's (the waitersPerPlan bound), or the workspace's set of
 * waits on steps that do not exist yet (the pendingWaiters bound) when no plan holds the target. A set, not a
 * counter: adding and removing a member are idempotent, so a registration's bound is exact in its commit, and a
 * waiter released twice (by the target's end and by its own step's end at once) leaves the count once.
 */
export const waiterSet = (planId: string | undefined): string =>
  planId === undefined ? setKeys.pendingWaiters() : setKeys.waitersOn(planId);

const memberOf = (node: string, w: Waiter): string => JSON.stringify([node, w.agent_id, w.plan_id, w.step_id]);

/** Where a waiter is kept: the target step's node and the set it is counted in (see waiterSet). */
export interface WaiterTarget {
  node: string;
  set: string;
}

/**
 * Adds waiters on the step `node`, reading nothing: a field set again and a member added again are no-ops, so a
 * registration costs the same however many wait on the step already. The caller counts them (`countWaiters`).
 */
export const addWaiters = (tx: Tx, node: string, waiters: readonly Waiter[]): void => {
  if (waiters.length === 0) return;
  const fields = Object.fromEntries(waiters.map((w) => [fieldOf(w), '1']));
  tx.op({ op: 'hset', key: hashKeys.waiters(node), fields }, { op: 'bump', key: docKeys.waiters(node) });
};

/**
 * Counts new waiters in their sets, one add per set so that its bound (`max`, when given for the set) counts them
 * together; a commit past a bound is refused whole (see refuseWaitersPastBound).
 */
export const countWaiters = (
  tx: Tx,
  joined: ReadonlyArray<{ target: WaiterTarget; waiter: Waiter }>,
  max?: (set: string) => number,
): void => {
  const bySet = new Map<string, string[]>();
  for (const { target, waiter } of joined) {
    const members = bySet.get(target.set) ?? [];
    members.push(memberOf(target.node, waiter));
    bySet.set(target.set, members);
  }
  for (const [key, members] of bySet) tx.op({ op: 'sadd', key, members, ...(max ? { max: max(key) } : {}) });
};

/**
 * Settles who waits on `target.node`, as loadWaitersOf read them (they resolve in the same commit), and releases them
 * from their count. A step's document goes with it; a step by agent and step id (no plan had it) keeps its
 * document, emptied, since another plan of the agent may get that step id and the version must never go back to
 * one a concurrent reader saw.
 */
export const dropWaiters = (tx: Tx, target: WaiterTarget, waiters: readonly Waiter[]): void => {
  const key = docKeys.waiters(target.node);
  if (isPendingNode(target.node)) tx.put(key, { waiters: [] });
  else tx.delete(key);
  tx.op({ op: 'del', kind: 'hash', key: hashKeys.waiters(target.node) });
  releaseWaiterCounts(tx, target, waiters);
};

/** Releases waiters from their count (idempotent: a waiter already released stays released). */
export const releaseWaiterCounts = (tx: Tx, target: WaiterTarget, waiters: readonly Waiter[]): void => {
  if (waiters.length > 0) tx.op({ op: 'srem', key: target.set, members: waiters.map((w) => memberOf(target.node, w)) });
};

/**
 * Removes one waiter from a step's waiters (its step ended before the target did) and releases it from its count.
 * Commutative, so waiters giving up on one target at once never conflict, with each other or with its end: the
 * end that read the waiter and commits after delivers to a step that no longer waits (a no-op) and releases it
 * again (idempotent). Only a waiter in a list of the earlier layout is rewritten there, read checked.
 */
export const removeWaiter = async (tx: Tx, target: WaiterTarget, waiter: Waiter) => {
  const key = docKeys.waiters(target.node);
  const [raw] = await tx.getUnchecked([key]);
  if (listedOf(key, raw).some((w) => sameWaiter(w, waiter))) {
    // Read checked to rewrite it; never deleted while it may still count: its version must not go back.
    const [checked] = await tx.getMany([key]);
    tx.put(key, { waiters: listedOf(key, checked).filter((w) => !sameWaiter(w, waiter)) });
  }
  tx.op({ op: 'hdel', key: hashKeys.waiters(target.node), fields: [fieldOf(waiter)] });
  releaseWaiterCounts(tx, target, [waiter]);
};

/**
 * Words the refusal of a commit that would have taken a waiter set past its bound as the limit it stands for; any
 * other error is rethrown as it is.
 */
export const refuseWaitersPastBound = (
  err: unknown,
  limits: { waitersPerPlan: number; pendingWaiters: number },
): never => {
  const refusal = boundRefusal(err);
  if (!refusal) throw err;
  const more = refusal.added;
  if (refusal.set === setKeys.pendingWaiters())
    fail(
      'RESOURCE_EXHAUSTED',
      `This workspace already has ${refusal.size} steps waiting on steps that do not exist yet; ${more} more would ` +
        `exceed the limit pendingWaiters (${limits.pendingWaiters}). Wait until the agents you depend on have created ` +
        'their plans (their plan_created event), or check the agent and step ids.',
      { kind: 'pendingWaiters', limit: limits.pendingWaiters },
    );
  const prefix = setKeys.waitersOn('');
  if (!refusal.set.startsWith(prefix)) throw err;
  const planId = refusal.set.slice(prefix.length);
  return fail(
    'RESOURCE_EXHAUSTED',
    `Plan ${planId} already has ${refusal.size} waiting steps from other plans; ${more} more would exceed the limit ` +
      `waitersPerPlan (${limits.waitersPerPlan}). Wait on fewer of its steps, or wait until some of them end.`,
    { kind: 'waitersPerPlan', limit: limits.waitersPerPlan, plan_id: planId },
  );
};
