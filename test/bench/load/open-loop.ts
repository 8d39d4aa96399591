import type { Histogram } from 'hdr-histogram-js';
import { newHistogram, recordMs, summarize } from '../stats/histogram.ts';
import type { ProbeOutcome } from '../stats/rate-search.ts';

export interface OpenLoopOptions {
  rate: number;
  /** Requests due during the warm-up are sent and awaited but not recorded. */
  warmupMs: number;
  durationMs: number;
  /** How long to wait for the last answers after the last send; what is still missing then counts as failed. */
  drainMs: number;
  /**
   * After the outcome is known, how long to wait at most for the stragglers, so an overloaded run does not spill
   * its backlog into the next one.
   */
  quiesceMs?: number;
  /**
   * Give up early (a failed run) once some request has waited this long: it could no longer meet a p99 target far
   * below this, and the backlog would only slow the next run. Omit to always run to the end.
   */
  abortAfterMs?: number;
  /**
   * Sends request `i`. Resolves when the sample is complete: with the completion time (performance.now()) when it
   * is observed elsewhere (an event arriving on another node), or with nothing to mean "now".
   */
  send: (i: number) => Promise<number | void>;
  /** Also records every measured latency here: runs of one kind, interleaved with others, add up to one distribution. */
  alsoRecordInto?: Histogram;
}

/**
 * Fixed arrival rate, open loop: request i is due at start + i/rate whatever happened to earlier ones, and its
 * latency is measured from that intended time, so a stalled server is charged for every request that queued
 * behind the stall (no coordinated omission). Requests due in the same timer tick are sent together.
 */
export const runOpenLoop = (options: OpenLoopOptions): Promise<ProbeOutcome> => {
  const histogram = newHistogram();
  const interval = 1000 / options.rate;
  const total = Math.max(1, Math.round((options.rate * (options.warmupMs + options.durationMs)) / 1000));
  const start = performance.now() + 5;
  const measuredFrom = start + options.warmupMs;
  const intended = (i: number) => start + i * interval;
  const settledFlags = new Uint8Array(total);
  let next = 0;
  let oldest = 0;
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let settled = 0;
  let firstError: string | undefined;
  let done = false;
  let quiet: (() => void) | undefined;

  const outcome = new Promise<ProbeOutcome>((resolve) => {
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (aborted = false) => {
      if (done) return;
      done = true;
      if (drainTimer) clearTimeout(drainTimer);
      // Requests an aborted run never sent still count as due and unanswered.
      for (let i = next; aborted && i < total; i++) if (intended(i) >= measuredFrom) sent += 1;
      resolve({
        rate: options.rate,
        sent,
        completed,
        errors,
        ...(firstError !== undefined ? { firstError } : {}),
        ...(aborted ? { aborted: true } : {}),
        latency: summarize(histogram),
      });
    };
    const settle = (i: number) => {
      settled += 1;
      settledFlags[i] = 1;
      while (oldest < next && settledFlags[oldest] === 1) oldest += 1;
      if (settled === next && (done || next === total)) quiet?.();
      if (settled === total && drainTimer) finish();
    };
    const fire = (i: number) => {
      const at = intended(i);
      const measured = at >= measuredFrom;
      if (measured) sent += 1;
      options.send(i).then(
        (completedAt) => {
          if (measured && !done) {
            completed += 1;
            const ms = (typeof completedAt === 'number' ? completedAt : performance.now()) - at;
            recordMs(histogram, ms);
            if (options.alsoRecordInto) recordMs(options.alsoRecordInto, ms);
          }
          settle(i);
        },
        (err: unknown) => {
          if (measured && !done) errors += 1;
          firstError ??= err instanceof Error ? err.message : String(err);
          settle(i);
        },
      );
    };
    const tick = () => {
      const now = performance.now();
      // A request unanswered this long means the run has already failed its target: stop adding load.
      if (options.abortAfterMs !== undefined && oldest < next && intended(oldest) < now - options.abortAfterMs) {
        finish(true);
        return;
      }
      while (next < total && intended(next) <= now) fire(next++);
      if (next < total) {
        setTimeout(tick, Math.max(0, intended(next) - performance.now()));
        return;
      }
      // Requests still unanswered after the drain count as failures: they are sent but never completed.
      drainTimer = setTimeout(finish, options.drainMs);
      if (settled === total) finish();
    };
    setTimeout(tick, 5);
  });
  return outcome.then(async (result) => {
    if (settled < next && options.quiesceMs)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.quiesceMs);
        quiet = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    return result;
  });
};
