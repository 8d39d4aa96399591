/** Most nodes see far fewer live plans; past it the least recently read hint is dropped. */
const MAX_HINTS = 10_000;

const hints = new Map<string, readonly string[]>();

const keyOf = (workspace: string, planId: string) => `${workspace}\u0000${planId}`;

/**
 * A plan's step ids as this node last read them: only a guess (the plan may have changed since, or be another
 * store's plan of the same name), used to load its steps in the same round trip as its header. A wrong guess costs
 * a second round trip for the steps it missed, never a wrong answer: the header decides which steps are read.
 */
export const stepIdsHint = {
  get(workspace: string, planId: string): readonly string[] | undefined {
    return hints.get(keyOf(workspace, planId));
  },
  set(workspace: string, planId: string, stepIds: readonly string[]): void {
    const key = keyOf(workspace, planId);
    hints.delete(key);
    hints.set(key, stepIds);
    if (hints.size > MAX_HINTS) hints.delete(hints.keys().next().value ?? key);
  },
};
