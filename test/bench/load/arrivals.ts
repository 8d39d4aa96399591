/**
 * Arrival times of messages observed on another connection (an event pushed by node B), by a key that identifies
 * them. A message may arrive before its sample registers the wait, so early arrivals are kept.
 */
export class Arrivals {
  private readonly waiting = new Map<string, { resolve: (at: number) => void; reject: (err: Error) => void }>();
  private readonly early = new Map<string, number>();

  arrive(key: string, at = performance.now()): void {
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter.resolve(at);
    } else {
      this.early.set(key, at);
    }
  }

  wait(key: string): Promise<number> {
    const at = this.early.get(key);
    if (at !== undefined) {
      this.early.delete(key);
      return Promise.resolve(at);
    }
    return new Promise((resolve, reject) => this.waiting.set(key, { resolve, reject }));
  }

  /** Gives up on a key whose cause was refused, so the sample fails instead of waiting out the drain. */
  fail(key: string, err: Error): void {
    this.waiting.get(key)?.reject(err);
    this.waiting.delete(key);
    this.early.delete(key);
  }
}
