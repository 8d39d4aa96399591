type AnyListener = (...args: unknown[]) => void;

/** A minimal typed emitter whose `on` returns its own unsubscribe. */
export class Emitter<Events extends Record<string, unknown[]>> {
  private readonly listeners = new Map<keyof Events, Set<AnyListener>>();

  on<K extends keyof Events>(name: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    const stored = listener as unknown as AnyListener;
    set.add(stored);
    return () => set.delete(stored);
  }

  protected emit<K extends keyof Events>(name: K, ...args: Events[K]): void {
    for (const listener of [...(this.listeners.get(name) ?? [])]) {
      try {
        listener(...args);
      } catch (err) {
        // A faulty application listener must not break delivery to the others.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
