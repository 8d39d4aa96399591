/**
 * Tells a session's running waitForEvents that one of the session's own calls changed its agent's subscriptions,
 * so the wait reads them again at once and does not sleep through an event only the new subscription matches.
 * A change made through another connection is seen by the wait's own re-read when it ends (wait-for-events.ts).
 */
export class SubscriptionChanges {
  private readonly waiting = new Set<() => void>();

  /** Resolves at the next change; `cancel` stops listening. */
  next(): { changed: Promise<void>; cancel: () => void } {
    let wake = () => {};
    const changed = new Promise<void>((resolve) => (wake = resolve));
    this.waiting.add(wake);
    return { changed, cancel: () => void this.waiting.delete(wake) };
  }

  notify(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const wake of waiting) wake();
  }
}
