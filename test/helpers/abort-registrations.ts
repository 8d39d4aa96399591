import { getEventListeners } from 'node:events';

export interface AbortRegistrations {
  /** The most registrations held now by one signal not aborted yet, and how many such signals hold any. */
  heaviest(): { registrations: number; holders: number };
  /** Puts AbortSignal.any and addEventListener back. */
  restore(): void;
}

/**
 * Counts, per AbortSignal, what is registered on it: its 'abort' listeners (node:events getEventListeners), and the
 * entries AbortSignal.any puts on its sources, which Node 20 keeps for the source's whole life (it flattens a
 * combined source into that one's sources, as here). Structural counts, read at once: no GC, no timing. Patches
 * globals of this process: call restore() in a finally.
 */
export const trackAbortRegistrations = (): AbortRegistrations => {
  const seen = new Set<AbortSignal>();
  const dependants = new Map<AbortSignal, Set<AbortSignal>>();
  const sourcesOf = new WeakMap<AbortSignal, readonly AbortSignal[]>();
  const realAny = Object.getOwnPropertyDescriptor(AbortSignal, 'any');
  const realAdd = Object.getOwnPropertyDescriptor(EventTarget.prototype, 'addEventListener');
  const any = AbortSignal.any.bind(AbortSignal);
  const add = realAdd?.value as EventTarget['addEventListener'];

  AbortSignal.any = (signals: Iterable<AbortSignal>): AbortSignal => {
    const list = [...signals];
    const result = any(list);
    const flat: AbortSignal[] = [];
    for (const signal of list) {
      if (signal.aborted) break;
      for (const source of sourcesOf.get(signal) ?? [signal]) {
        flat.push(source);
        seen.add(source);
        let set = dependants.get(source);
        if (!set) dependants.set(source, (set = new Set()));
        set.add(result);
      }
    }
    sourcesOf.set(result, flat);
    return result;
  };
  EventTarget.prototype.addEventListener = function (this: EventTarget, ...args: Parameters<typeof add>) {
    if (this instanceof AbortSignal) seen.add(this);
    add.apply(this, args);
  };

  return {
    heaviest() {
      let registrations = 0;
      let holders = 0;
      for (const signal of seen) {
        if (signal.aborted) continue;
        const held = getEventListeners(signal, 'abort').length + (dependants.get(signal)?.size ?? 0);
        if (held > 0) holders += 1;
        registrations = Math.max(registrations, held);
      }
      return { registrations, holders };
    },
    restore() {
      if (realAny) Object.defineProperty(AbortSignal, 'any', realAny);
      if (realAdd) Object.defineProperty(EventTarget.prototype, 'addEventListener', realAdd);
    },
  };
};
