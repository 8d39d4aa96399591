import { CALLS_IN_FLIGHT_PER_CONNECTION } from '@planhub/shared';

/**
 * The client's calls on the wire, kept under what a node lets one connection have unanswered: past it the node
 * answers RESOURCE_EXHAUSTED at once, so an application making 150 calls at once got 31 refusals it had not earned.
 * Calls past the bound wait here, in order, for an answer to free a place; a call's own deadline bounds the wait.
 */
export class CallSlots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max = CALLS_IN_FLIGHT_PER_CONNECTION) {}

  /** Resolves with the release once a place is free, or rejects with `late()` when `deadline` (epoch ms) comes first. */
  take(deadline: number | undefined, late: () => Error): Promise<() => void> {
    if (this.used < this.max) return Promise.resolve(this.hold());
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve(this.hold());
      };
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(() => {
              const at = this.waiting.indexOf(turn);
              if (at >= 0) this.waiting.splice(at, 1);
              reject(late());
            }, deadline - Date.now());
      this.waiting.push(turn);
    });
  }

  private hold(): () => void {
    this.used += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= 1;
      // The freed place goes to the call that waited longest.
      this.waiting.shift()?.();
    };
  }
}
