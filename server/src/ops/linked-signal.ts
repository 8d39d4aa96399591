/** A signal that aborts with the first of its sources, until `unlink()` takes it off them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Removes the link's listeners from every source (idempotent); the signal stays as it is. */
  unlink(): void;
}

/**
 * Like AbortSignal.any, but with an end. On Node 20, AbortSignal.any leaves a WeakRef in a Set on every source for
 * as long as the source lives, even once the combined signal is gone: combined per call with a signal that lives for
 * a session or the process, that Set grew by one entry per call (61 bytes each, never given back). Here each source
 * holds one 'abort' listener, removed when any source aborts or when the owner calls `unlink()`: use it for one call
 * or one connection, and unlink it when that ends.
 */
export const linkSignals = (sources: readonly AbortSignal[]): LinkedSignal => {
  const controller = new AbortController();
  const early = sources.find((source) => source.aborted);
  if (early) {
    controller.abort(early.reason);
    return { signal: controller.signal, unlink: () => {} };
  }
  let linked = true;
  const unlink = () => {
    if (!linked) return;
    linked = false;
    for (const source of sources) source.removeEventListener('abort', onAbort);
  };
  // The source that aborted gives the link its reason, as AbortSignal.any does.
  const onAbort = (event: Event) => {
    unlink();
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const source of sources) source.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, unlink };
};
