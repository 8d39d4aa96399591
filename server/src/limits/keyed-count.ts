/**
 * One node's count of what each key holds (connections per address, waits per agent) and of all of them together.
 * A slot is given back by the function `take` returns, at most once: a connection that closes twice, or a wait that
 * answers and then times out, must not free a slot someone else holds.
 */
export class KeyedCount {
  private readonly byKey = new Map<string, number>();
  private all = 0;

  held(key: string): number {
    return this.byKey.get(key) ?? 0;
  }

  get total(): number {
    return this.all;
  }

  take(key: string): () => void {
    this.byKey.set(key, this.held(key) + 1);
    this.all++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.all--;
      const left = this.held(key) - 1;
      // Keys whose slots are all back are dropped, so addresses seen once do not stay in memory.
      if (left > 0) this.byKey.set(key, left);
      else this.byKey.delete(key);
    };
  }
}
