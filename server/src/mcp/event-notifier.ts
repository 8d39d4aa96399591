import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import type { EventHub } from '../events/event-hub.ts';
import { sessionMatcher } from './session-events.ts';

/**
 * Sends the session's matching events as MCP log notifications (`notifications/message`, logger "planhub/events",
 * data = the event envelope) to hosts that keep the session's GET stream open. Advisory only: most hosts do not show
 * them to the model, and the waitForEvents cursor does not move, so the model still receives every event from there.
 *
 * It listens to the workspace only once there is something to notify: the session has a subscription (stored, or
 * made in the session), or one of its agent's plans may be awaiting a decision (`listen`): it was when the session
 * opened, put up elsewhere, or the session is about to make a call that may leave one so. Until then the session
 * does not make its node follow the workspace's events.
 */
export class EventNotifier {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly match: (event: EventEnvelope) => boolean;
  private stop: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly caller: Caller,
    private readonly hub: EventHub,
    stored: readonly Subscription[],
    private readonly send: (event: EventEnvelope) => void,
  ) {
    for (const sub of stored) this.subscriptions.set(sub.subscription_id, sub);
    // An iterable over the live map: subscriptions made later in the session apply at once.
    this.match = sessionMatcher(caller, { [Symbol.iterator]: () => this.subscriptions.values() });
    if (this.subscriptions.size > 0) this.listen();
  }

  /** Notifies the host from now on, for the rest of the session (a decision may come long after its request). */
  listen(): void {
    if (this.stop || this.closed) return;
    this.stop = this.hub.listen(this.caller.workspace, (event) => {
      if (this.match(event)) this.send(event);
    });
  }

  subscribed(sub: Subscription): void {
    this.subscriptions.set(sub.subscription_id, sub);
    this.listen();
  }

  unsubscribed(ids: readonly string[]): void {
    for (const id of ids) this.subscriptions.delete(id);
  }

  close(): void {
    this.closed = true;
    this.stop?.();
    this.stop = undefined;
    this.subscriptions.clear();
  }
}
