import type { EventEnvelope } from '@planhub/shared';
import type { Store } from '../store/store.ts';

export interface StoreTap {
  /** Events this node just committed (each event is committed by exactly one node). */
  committed(events: readonly EventEnvelope[]): void;
  conflict(): void;
  failed(operation: string): void;
}

/**
 * The store as this node's calls see it, observed: which events this node committed (for reporters and metrics)
 * and which operations failed. A Proxy rather than a wrapper object, so a store class with more methods or
 * private fields keeps working unchanged.
 */
export const tapStore = (store: Store, tap: StoreTap): Store => {
  // One wrapper per method, made on first use: the store is on every call's path.
  const wrappers = new Map<PropertyKey, unknown>();
  const wrap = (key: PropertyKey, method: (...args: unknown[]) => unknown) => {
    if (key === 'watch' || key === 'close') return method.bind(store);
    const operation = String(key);
    return (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method.apply(store, args);
      } catch (err) {
        tap.failed(operation);
        throw err;
      }
      if (!(result instanceof Promise)) return result;
      return result.then(
        (answer: unknown) => {
          if (operation === 'commit') {
            const outcome = answer as Awaited<ReturnType<Store['commit']>>;
            if (outcome.ok) tap.committed(outcome.events);
            // A quota refusal is the caller's RESOURCE_EXHAUSTED, not write contention.
            else if (outcome.reason === 'conflict') tap.conflict();
          }
          return answer;
        },
        (err: unknown) => {
          tap.failed(operation);
          throw err;
        },
      );
    };
  };
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (!wrappers.has(key)) wrappers.set(key, wrap(key, value as (...args: unknown[]) => unknown));
      return wrappers.get(key);
    },
  });
};
