import type { Logger } from 'pino';
import { corruptEvent } from './corrupt-stored.ts';

/**
 * How a store names the log entries its readers skip (an entry that is not an event: redis/stream-read.ts says why
 * they are skipped, not thrown): once per store, as an error with the log's key and the entry's id, since every
 * read over the entry finds it again.
 */

/** Entries named at most: a log full of corrupt entries must not grow this without end. */
const MAX_NAMED = 10_000;

export type SkippedEntry = (streamKey: string, id: string, detail: string) => void;

/** Logs each skipped entry once per store (every read over it finds it again), up to MAX_NAMED. */
export const namedOnce = (log: Logger): SkippedEntry => {
  const named = new Set<string>();
  let overflowed = false;
  return (streamKey, id, detail) => {
    const name = `${streamKey} ${id}`;
    if (named.has(name) || overflowed) return;
    if (named.size >= MAX_NAMED) {
      overflowed = true;
      return void log.error(
        { stream: streamKey },
        `more than ${MAX_NAMED} corrupt log entries; the rest skipped unnamed`,
      );
    }
    named.add(name);
    log.error(
      { err: corruptEvent(streamKey, id, detail), stream: streamKey, entry: id },
      'corrupt event log entry skipped',
    );
  };
};

/** The stored text of log entry `id` as a JSON object, or undefined once it is named as skipped (both stores). */
export const entryObject = (
  text: string,
  log: string,
  id: string,
  skipped: SkippedEntry,
): Record<string, unknown> | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return void skipped(log, id, 'not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return void skipped(log, id, 'not a JSON object');
  return value as Record<string, unknown>;
};
