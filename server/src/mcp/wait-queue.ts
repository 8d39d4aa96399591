/**
 * A session's waitForEvents calls, run one after another: they share the session's cursor, and two running at once
 * would read from the same position and hand out the same events twice.
 *
 * Each wait keeps the deadline its call arrived with, however long it queued: a host times a tool call from when it
 * sent it, and mcp.md promises that a wait ends within its `timeout`. A wait whose deadline comes while it is still
 * queued leaves the queue, never runs (so it cannot move the cursor after its answer went out) and answers `expired`.
 * A wait its host cancelled while queued leaves it the same way and never runs: run on its turn, it took the next
 * events and moved the cursor past them, and its answer was never sent, so the session lost them.
 */
export class WaitQueue {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `work` once the waits queued before it have ended, or answers `expired()` at `deadline` (a
   * performance.now() time) if that comes first. A wait at the head of the queue always runs, even with no time
   * left: its turn comes in a microtask, before any timer, so a `timeout: 0` wait alone still reads the log.
   */
  run<T>(work: () => Promise<T>, deadline: number, expired: () => T, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let state: 'queued' | 'running' | 'left' = 'queued';
      const leave = (answer: () => void) => {
        if (state !== 'queued') return;
        state = 'left';
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancelled);
        answer();
      };
      const timer = setTimeout(() => leave(() => resolve(expired())), Math.max(0, deadline - performance.now()));
      // Nobody reads the answer of a cancelled call: the rejection only ends it.
      const cancelled = () => leave(() => reject(new Error('The host cancelled this call while it was queued.')));
      if (signal?.aborted) cancelled();
      else signal?.addEventListener('abort', cancelled, { once: true });
      this.tail = this.tail.then(async () => {
        if (state === 'left') return;
        state = 'running';
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancelled);
        await work().then(resolve, reject);
      });
    });
  }
}
