import type { Waiter } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { byBytes } from '../core/byte-order.ts';
import { isPendingNode } from '../core/dependencies/nodes.ts';
import { corruptDocument } from '../store/documents/define.ts';
import { documents } from '../store/documents/documents.ts';
import { counterKeys, docKeys, hashKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';

/**
 * Who waits on one step from other plans, by the target's node. Each waiter is a field of the hash `waiters:<node>`
 * (its JSON-encoded [agent_id, plan_id, step_id]), added and removed by commutative operations, so K steps registering
 * on one step at once never conflict with one another. Every registration and removal bumps the document
 * `waiters:<node>`, which whoever settles the waiters (the target's end, retention, a plan's end for a step it never
 * got) reads checked: a registration committed between that read and its commit makes it re-run and see the
 * registration. The other way round, a registration read the target step checked, which the end writes.
 *
 * The document's value is the list stored before the hash existed (round 13's layout): read beside the hash and
 * settled with it, never added to.
 */
interface Entries {
  /** Waiters of the stored list (the earlier layout). */
  listed: readonly Waiter[];
  /** Waiters of the hash, by field. */
  hashed: ReadonlyMap<string, Waiter>;
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

const all = (e: Entries): Waiter[] => [...e.listed, ...e.hashed.values()];

/**
 * Reads who waits on each of `nodes`, in one round trip. `checked`: the read of whoever settles or removes waiters,
 * which conflicts with every registration and removal committed since; a registration reads unchecked, so
 * registrations never conflict with one another.
 */
const loadEntries = async (tx: Tx, nodes: readonly string[], checked: boolean): Promise<Entries[]> => {
  const keys = nodes.map(docKeys.waiters);
  const hashes = nodes.map(hashKeys.waiters);
  await tx.prefetch(checked ? keys : [], checked ? [] : keys, hashes);
  const raws = checked ? await tx.getMany(keys) : await tx.getUnchecked(keys);
  return Promise.all(
    nodes.map(async (node, i) => {
      const hash = await tx.hash(hashes[i] ?? '');
      const fields = Object.keys(hash).sort(byBytes);
      return {
        listed: documents.waiters.decode(keys[i] ?? '', raws[i])?.waiters ?? [],
        hashed: new Map(fields.map((f) => [f, waiterOf(node, f)])),
      };
    }),
  );
};

/** The keys a step's end prefetches with its step, to settle who waits on it (see `loadWaitersOf`). */
export const waiterReadKeys = (nodes: readonly string[]) => ({
  docs: nodes.map(docKeys.waiters),
  hashes: nodes.map(hashKeys.waiters),
});

/** Reads the waiters of `nodes` for `addWaiters` (unchecked), all in one round trip. */
export const prefetchWaiters = async (tx: Tx, nodes: readonly string[]): Promise<void> => {
  await loadEntries(tx, nodes, false);
};

/** Who waits on each of `nodes`, read checked (for settling them: see loadEntries), in one round trip. */
export const loadWaitersOf = async (tx: Tx, nodes: readonly string[]): Promise<Waiter[][]> =>
  (await loadEntries(tx, nodes, true)).map(all);

/**
 * The counter a waiter joins: the target plan's (the waitersPerPlan bound), or the workspace's count of waits on
 * steps that do not exist yet (the pendingWaiters bound) when no plan holds the target.
 */
export const waiterCounter = (planId: string | undefined): string =>
  planId === undefined ? counterKeys.pendingWaiters() : counterKeys.waitersOn(planId);

/**
 * Adds waiters on the step `node` and counts them on `counter` (see waiterCounter). Returns how many were new. A
 * waiter is the step being made to wait, which this call writes, so the same waiter is never added twice at once.
 */
export const addWaiters = async (
  tx: Tx,
  target: { counter: string; node: string },
  waiters: readonly Waiter[],
): Promise<number> => {
  const [current] = await loadEntries(tx, [target.node], false);
  const known = current ? all(current) : [];
  const fresh = waiters.filter((w) => !known.some((c) => sameWaiter(c, w)));
  if (fresh.length === 0) return 0;
  const fields = Object.fromEntries(fresh.map((w) => [fieldOf(w), '1']));
  tx.op(
    { op: 'hset', key: hashKeys.waiters(target.node), fields },
    { op: 'bump', key: docKeys.waiters(target.node) },
    { op: 'incr', key: target.counter, by: fresh.length },
  );
  return fresh.length;
};

/**
 * Settles who waits on `node`, as loadWaitersOf read them (they resolve in the same commit), and releases them from
 * their count. A step's document goes with it; a step by agent and step id (no plan had it) keeps its document,
 * bumped, since another plan of the agent may get that step id and the version must never go back to one a
 * concurrent reader saw.
 */
export const dropWaiters = (tx: Tx, target: { counter: string; node: string }, count: number): void => {
  const key = docKeys.waiters(target.node);
  if (isPendingNode(target.node)) tx.put(key, { waiters: [] });
  else tx.delete(key);
  tx.op({ op: 'del', kind: 'hash', key: hashKeys.waiters(target.node) });
  if (count > 0) tx.op({ op: 'incr', key: target.counter, by: -count });
};

/**
 * Removes one waiter from a step's waiters (its step ended before the target did) and releases it from its count.
 * Read checked, so it conflicts with the target's end (which releases every waiter it read from the count).
 */
export const removeWaiter = async (tx: Tx, target: { counter: string; node: string }, waiter: Waiter) => {
  const [current] = await loadEntries(tx, [target.node], true);
  if (!current) return;
  const key = docKeys.waiters(target.node);
  const kept = current.listed.filter((w) => !sameWaiter(w, waiter));
  if (kept.length < current.listed.length) {
    // Rewritten, never deleted while it may still count: its version must not go back (see dropWaiters).
    tx.put(key, { waiters: kept });
  } else if (current.hashed.has(fieldOf(waiter))) {
    tx.op({ op: 'hdel', key: hashKeys.waiters(target.node), fields: [fieldOf(waiter)] }, { op: 'bump', key });
  } else return;
  tx.op({ op: 'incr', key: target.counter, by: -1 });
};

/**
 * Refuses a call that would leave more than `limit` waits on steps that do not exist yet in the workspace: such a
 * wait names any agent and step id, so without a bound bad input could store waiters without end.
 */
export const checkPendingBound = async (tx: Tx, added: number, limit: number): Promise<void> => {
  if (added === 0) return;
  const { counters } = await tx.collections({ counters: [counterKeys.pendingWaiters()] });
  const now = Math.max(0, counters[0] ?? 0);
  if (now + added > limit)
    fail(
      'RESOURCE_EXHAUSTED',
      `This workspace already has ${now} steps waiting on steps that do not exist yet; ${added} more would exceed ` +
        `the limit pendingWaiters (${limit}). Wait until the agents you depend on have created their plans (their ` +
        'plan_created event), or check the agent and step ids.',
      { kind: 'pendingWaiters', limit },
    );
};

/**
 * Refuses a call that would leave more than `limit` waiters from other plans on one plan. `added`: new waiters per
 * target plan in this call. Checked on the counter as read, so concurrent calls on different steps of one plan can
 * overshoot by what they add at once; the counter stays exact.
 */
export const checkWaiterBound = async (tx: Tx, added: ReadonlyMap<string, number>, limit: number): Promise<void> => {
  const planIds = [...added.keys()];
  if (planIds.length === 0) return;
  const { counters } = await tx.collections({ counters: planIds.map(counterKeys.waitersOn) });
  planIds.forEach((planId, i) => {
    const now = Math.max(0, counters[i] ?? 0);
    const more = added.get(planId) ?? 0;
    if (now + more > limit)
      fail(
        'RESOURCE_EXHAUSTED',
        `Plan ${planId} already has ${now} waiting steps from other plans; ${more} more would exceed the limit ` +
          `waitersPerPlan (${limit}). Wait on fewer of its steps, or wait until some of them end.`,
        { kind: 'waitersPerPlan', limit, plan_id: planId },
      );
  });
};
