import { compareEventIds } from '@planhub/shared';
import type { Store } from '../store/store.ts';
import { LOG_START } from './past-log-end.ts';

/**
 * The newest event the log trimmed when it is later than `cursor`: events after the cursor are gone, and a reader
 * resuming there would read on as if nothing were missing (the log keeps the newest PLANHUB_EVENT_RETENTION events,
 * and the memory store also drops old ones past its byte budget). Undefined when nothing after the cursor was trimmed.
 */
export const trimmedAfter = async (store: Store, workspace: string, cursor: string): Promise<string | undefined> => {
  if (cursor === LOG_START) return undefined;
  const trimmed = await store.trimmedThrough(workspace);
  return trimmed !== undefined && compareEventIds(trimmed, cursor) > 0 ? trimmed : undefined;
};

/** What an answer says when events after its cursor were trimmed: what happened, then `next` (how to go on). */
export const trimmedGapWarning = (name: string, cursor: string, trimmed: string, next: string): string =>
  `${name} "${cursor}" is older than events this workspace's log no longer keeps (trimmed through ${trimmed} to ` +
  `stay within its retention), so events after it are missing: ${next} Read the current state you rely on ` +
  '(getPlanStatus, getWorkspace) rather than rebuilding it from events.';
