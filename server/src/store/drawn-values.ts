import { type CallBudget, withinBudget } from './call-budget.ts';
import type { Remembered } from './request-fingerprint.ts';
import type { Store } from './store.ts';

/** Thrown by a draw in a call whose request was already applied: transact answers from the request log. */
export class AppliedAlready extends Error {
  constructor() {
    super('the request was already applied');
  }
}

/**
 * Values a call draws from counters (`Tx.draw`), kept across its attempts: transact makes one per call. A counter's
 * next value is drawn by an increment committed at once, on its own, so concurrent calls each get their own value and
 * never conflict over it (a value derived from a counter as read makes all but one of them re-run). Its re-runs get
 * the same value. A value drawn by a call that then fails is never handed out again. A call already applied (its
 * request_id remembered) draws nothing. Nothing is allocated until a call draws: most calls never do.
 */
export class DrawnValues {
  private drawn: Map<string, number> | undefined;

  constructor(
    private readonly store: Store,
    private readonly workspace: string,
    /** The call's admission: nothing is committed before it resolves. */
    private readonly admitted?: Promise<void>,
  ) {}

  async draw(counter: string, budget: CallBudget | undefined, remembered: () => Promise<Remembered | undefined>) {
    const known = this.drawn?.get(counter);
    if (known !== undefined) return known;
    if (await remembered()) throw new AppliedAlready();
    await this.admitted;
    const outcome = await withinBudget(budget, () =>
      this.store.commit(this.workspace, {
        reads: [],
        writes: [],
        ops: [{ op: 'incr', key: counter, by: 1 }],
        events: [],
      }),
    );
    const value = outcome.ok ? outcome.counters?.[0] : undefined;
    // A commit of one increment reads nothing and stores no byte more, so no store refuses it.
    if (value === undefined) throw new Error(`drawing from counter ${counter} was refused: ${JSON.stringify(outcome)}`);
    (this.drawn ??= new Map()).set(counter, value);
    return value;
  }
}
