/**
 * Tells every call in flight that its client closed, through one listener on the client's signal however many calls
 * are in flight: an AbortSignal warns past 10 listeners (MaxListenersExceededWarning, as if they leaked), and an
 * application may well have more calls than that waiting at once.
 */
export class CloseWatch {
  private readonly watchers = new Set<(reason: Error) => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener(
      'abort',
      () => {
        const watchers = [...this.watchers];
        this.watchers.clear();
        for (const onClosed of watchers) onClosed(signal.reason as Error);
      },
      { once: true },
    );
  }

  /** Calls `onClosed` once when the client closes, unless the returned function was called first. */
  watch(onClosed: (reason: Error) => void): () => void {
    this.watchers.add(onClosed);
    return () => this.watchers.delete(onClosed);
  }
}
