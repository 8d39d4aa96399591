import { MAX_EVENT_BYTES, PlanHubError } from '@planhub/shared';
import { eventBytes } from './event-json.ts';
import type { Store } from '../store/store.ts';

/**
 * Every event a store commits is at most `maxBytes` as JSON: a call whose events would be larger is refused before
 * anything is written (events are copied into every log, feed and subscriber, so their size multiplies).
 */
export const capEventSize = (store: Store, maxBytes = MAX_EVENT_BYTES): Store => {
  const capped = Object.create(store) as Store & { commit: Store['commit'] };
  capped.commit = (workspace, commit) => {
    for (const event of commit.events) {
      const bytes = eventBytes(event);
      if (bytes > maxBytes)
        return Promise.reject(
          new PlanHubError(
            'RESOURCE_EXHAUSTED',
            `This call would record a ${event.event_type} event of ${bytes} bytes; events may be at most ${maxBytes} ` +
              'bytes as JSON. Send less per call (fewer or shorter items), or store large data elsewhere and pass a ' +
              'reference.',
            { kind: 'event_bytes', limit: maxBytes, event_type: event.event_type },
          ),
        );
    }
    return store.commit(workspace, commit);
  };
  return capped;
};
