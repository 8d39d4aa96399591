import type { EventEnvelope } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { type CallBudget, withinBudget } from './call-budget.ts';
import { fingerprintTool, type Remembered } from './request-fingerprint.ts';
import type { BoundRefusal, Commit, QuotaRefusal, Store } from './store.ts';
import { DrawnValues } from './drawn-values.ts';
import { Tx } from './transaction.ts';

/** The retry loop around a call's transaction (transaction.ts): request_id replay, admission, quota and conflicts. */

export interface TransactOptions {
  /**
   * `fingerprint`: the tool and arguments the request_id is bound to, as the client sent them (`request-fingerprint.ts`).
   * `earlierFingerprint`: the one builds before it stored (of the arguments as parsed), also accepted, so an answer
   * such a build remembered replays here; called only when a remembered answer's fingerprint is not `fingerprint`.
   */
  request?: {
    agent_id: string;
    request_id: string;
    ttl_ms: number;
    fingerprint?: string;
    earlierFingerprint?: () => string;
    keep?: number;
  };
  maxAttempts?: number;
  /** The call's admission (its call count): nothing is committed before it resolves, and not at all if it rejects. */
  admitted?: Promise<void>;
  /** What the call may spend waiting on the store, over all its attempts (call-budget.ts); unbounded when undefined. */
  budget?: CallBudget | undefined;
}

export interface TransactResult<R> {
  result: R;
  events: EventEnvelope[];
  /** True when the answer came from the request log (a retry of an applied call). */
  replayed: boolean;
  /** Documents the applied commit wrote (none for a replay or a call that changed nothing): its work, for its cost. */
  written?: number;
  /** Bytes of the outputs the commit's fan-ins record, one copy per waiting step (write-cost.ts, recordCost). */
  recorded?: number;
}

/**
 * Whether a remembered answer was given to this call: its fingerprint is the call's, or the one a build before raw
 * fingerprints stored for it (worked out only here, on a retry). An answer remembered before fingerprints existed
 * was given to any call (nothing to compare it with).
 */
const sameCall = (stored: Remembered, request: TransactOptions['request']): boolean =>
  stored.fingerprint === undefined ||
  request?.fingerprint === undefined ||
  stored.fingerprint === request.fingerprint ||
  stored.fingerprint === request.earlierFingerprint?.();

/** The remembered answer, when it was given to the same call (see sameCall). */
const replay = <R>(stored: Remembered, request: TransactOptions['request']): TransactResult<R> => {
  if (!sameCall(stored, request))
    throw new PlanHubError(
      'INVALID_ARGUMENT',
      `request_id ${JSON.stringify((request?.request_id ?? '').slice(0, 128))} was already used for ` +
        `${fingerprintTool(stored.fingerprint ?? '')} with other arguments; use a new request_id.`,
    );
  return { result: stored.answer as R, events: [], replayed: true };
};

const quotaExceeded = (workspace: string, q: QuotaRefusal) =>
  new PlanHubError(
    'RESOURCE_EXHAUSTED',
    `Workspace ${JSON.stringify(workspace)} stores ${q.used} bytes; this change needs ${q.needed} more, past its ` +
      `quota workspaceBytes (${q.limit}). Nothing was written. Finished plans past each agent's retention ` +
      `(PLANHUB_FINISHED_PLANS_KEPT) are removed as agents create or finish plans; clear todos and tasks it no ` +
      `longer needs, or ask an operator to raise PLANHUB_LIMIT_WORKSPACE_BYTES or lower PLANHUB_FINISHED_PLANS_KEPT.`,
    { kind: 'workspaceBytes', workspace, used: q.used, needed: q.needed, limit: q.limit },
  );

/** What the store remembers of a request: everything but how an earlier build fingerprinted it. */
const storedRequest = (request: NonNullable<TransactOptions['request']>, answer: unknown) => {
  const { earlierFingerprint: _, ...stored } = request;
  return { ...stored, answer };
};

/**
 * Each fan-in writes its set and its record. What it writes when it fires is not counted: the last of a 1,000-task
 * list's completions fires the seed's cleanup, which deletes every task, and would have cost 248 units, past an
 * agent's whole default budget, for work the agent did not ask for.
 */
const fanInDocuments = (fanIns: Commit['fanIns']): number =>
  (fanIns ?? []).reduce((n, f) => n + 1 + (f.record ? 1 : 0), 0);

const recordedBytes = (fanIns: Commit['fanIns']): number => {
  let bytes = 0;
  for (const f of fanIns ?? [])
    for (const [field, value] of Object.entries(f.record?.fields ?? {})) bytes += field.length + value.length;
  return bytes;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bounded set (an sadd's `max`) is full. The tool that bounds it words the refusal for its caller (see
 * `boundRefusal`); this message is the fallback.
 */
const boundExceeded = (b: BoundRefusal) =>
  new PlanHubError(
    'RESOURCE_EXHAUSTED',
    `The set ${JSON.stringify(b.key)} holds ${b.size} members; ${b.added} more would pass its bound, ${b.max}. ` +
      'Nothing was written.',
    { kind: 'setBound', set: b.key, size: b.size, added: b.added, max: b.max },
  );

/**
 * The set, its size and what the call would have added to it when `err` is the refusal of a commit that would take a
 * bounded set past its bound.
 */
export const boundRefusal = (err: unknown): { set: string; size: number; added: number } | undefined => {
  if (!(err instanceof PlanHubError) || err.code !== 'RESOURCE_EXHAUSTED') return undefined;
  const details = err.details as { kind?: unknown; set?: unknown; size?: unknown; added?: unknown } | undefined;
  return details?.kind === 'setBound' &&
    typeof details.set === 'string' &&
    typeof details.size === 'number' &&
    typeof details.added === 'number'
    ? { set: details.set, size: details.size, added: details.added }
    : undefined;
};

/**
 * Runs `body` optimistically: on a version conflict it is run again from scratch on fresh reads, so concurrent
 * calls from any number of nodes serialize per document without locks.
 */
export const transact = async <R>(
  store: Store,
  workspace: string,
  body: (tx: Tx) => Promise<R>,
  options: TransactOptions = {},
): Promise<TransactResult<R>> => {
  const maxAttempts = options.maxAttempts ?? 64;
  const drawn = new DrawnValues(store, workspace, options.admitted);
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    // The request-log lookup is read with the body's first documents (the body writes nothing until the commit), so
    // a call with a request_id costs no extra round trip. A retry of an applied call answers from the log even when
    // the body now fails (e.g. createPlan again after it succeeded).
    const { request, budget } = options;
    const tx = new Tx(store, workspace, budget, request, drawn);
    let result: R;
    try {
      result = await body(tx);
    } catch (err) {
      const stored = await tx.rememberedAnswer();
      if (stored) return replay(stored, options.request);
      throw err;
    }
    const stored = await tx.rememberedAnswer();
    if (stored) return replay(stored, options.request);
    if (!tx.hasChanges && !options.request) return { result, events: [], replayed: false };
    await options.admitted;
    const commit = tx.toCommit();
    const outcome = await withinBudget(budget, () =>
      store.commit(workspace, { ...commit, ...(request ? { request: storedRequest(request, result) } : {}) }),
    );
    if (outcome.ok)
      return {
        result: tx.completeAnswer(result, outcome.fired),
        events: outcome.events,
        replayed: false,
        written: commit.writes.length + fanInDocuments(commit.fanIns),
        recorded: recordedBytes(commit.fanIns),
      };
    if (outcome.reason === 'quota') throw quotaExceeded(workspace, outcome);
    if (outcome.reason === 'bound') throw boundExceeded(outcome);
    // Jittered backoff keeps many racing writers from colliding again in lockstep.
    await pause(Math.random() * Math.min(50, attempt * 2));
  }
  throw new PlanHubError('UNAVAILABLE', 'The workspace is too busy right now (write contention); retry the call.');
};
