/**
 * A session's waitForEvents calls, run one after another: they share the session's cursor, and two running at once
 * would read from the same position and hand out the same events twice.
 *
 * Each wait keeps the deadline its call arrived with, however long it queued: a host times a tool call from when it
 * sent it, and mcp.md promises that a wait ends within its `timeout`. A wait whose deadline comes while it is still
 * queued leaves the queue, never runs (so it cannot move the cursor after its answer went out) and answers `expired`.
 */
export class WaitQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `work` once the waits queued before it have ended, or answers `expired()` at `deadline` (a
   * performance.now() time) if that comes first. A wait at the head of the queue always runs, even with no time
   * left: its turn comes in a microtask, before any timer, so a `timeout: 0` wait alone still reads the log.
   */
  run<T>(work: () => Promise<T>, deadline: number, expired: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let state: 'queued' | 'running' | 'expired' = 'queued';
      const timer = setTimeout(
        () => {
          if (state !== 'queued') return;
          state = 'expired';
          resolve(expired());
        },
        Math.max(0, deadline - performance.now()),
      );
      this.tail = this.tail.then(async () => {
        if (state === 'expired') return;
        state = 'running';
        clearTimeout(timer);
        await work().then(resolve, reject);
      });
    });
  }
}
