import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { withEventId } from '@planhub/shared';

/**
 * What commit.lua publishes on a workspace's channel: `[workspace, stream id, envelope JSON without event_id,
 * id of the log entry before it ('0-0' for the first)]`. The predecessor lets a subscriber see that it missed a
 * message without waiting for a reconnect.
 */
export const decodeMessage = (
  message: string,
): { workspace: string; event: EventEnvelope; previous: string | undefined } => {
  const [workspace, id, json, previous] = JSON.parse(message) as [string, string, string, string?];
  if (typeof workspace !== 'string' || typeof id !== 'string' || typeof json !== 'string')
    throw new Error('not an event message');
  return {
    workspace,
    event: withEventId(id, JSON.parse(json) as NewEvent),
    previous: typeof previous === 'string' ? previous : undefined,
  };
};
