import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import type { EventHub } from '../events/event-hub.ts';
import { sessionMatcher } from './session-events.ts';

/**
 * Sends the session's matching events as MCP log notifications (`notifications/message`, logger "planhub/events",
 * data = the event envelope) to hosts that keep the session's GET stream open. Advisory only: most hosts do not show
 * them to the model, and the waitForEvents cursor does not move, so the model still receives every event from there.
 */
export class EventNotifier {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly stop: () => void;

  constructor(caller: Caller, hub: EventHub, stored: readonly Subscription[], send: (event: EventEnvelope) => void) {
    for (const sub of stored) this.subscriptions.set(sub.subscription_id, sub);
    // An iterable over the live map: subscriptions made later in the session apply at once.
    const match = sessionMatcher(caller, { [Symbol.iterator]: () => this.subscriptions.values() });
    this.stop = hub.listen(caller.workspace, (event) => {
      if (match(event)) send(event);
    });
  }

  subscribed(sub: Subscription): void {
    this.subscriptions.set(sub.subscription_id, sub);
  }

  unsubscribed(ids: readonly string[]): void {
    for (const id of ids) this.subscriptions.delete(id);
  }

  close(): void {
    this.stop();
    this.subscriptions.clear();
  }
}
