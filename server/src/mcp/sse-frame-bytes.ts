import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The logger of event notifications: their `data` is the event envelope, the one object the hub gave every session. */
export const EVENTS_LOGGER = 'planhub/events';

/** What the SDK's writeSSEEvent puts around a message's JSON (no event ids without an event store). */
const FRAMING_BYTES = Buffer.byteLength('event: message\ndata: \n\n');
const NULL_BYTES = Buffer.byteLength(JSON.stringify(null));

/**
 * Each event's JSON size, by event object. The hub hands all the sessions watching a workspace the same envelope,
 * and committed events are not changed, so with N streams open an event is serialized to be measured once, not N
 * times.
 */
const eventBytes = new WeakMap<object, number>();

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

const bytesOfEvent = (event: object): number => {
  let bytes = eventBytes.get(event);
  if (bytes === undefined) eventBytes.set(event, (bytes = jsonBytes(event)));
  return bytes;
};

/** An event notification's params and its event; undefined for any other message. */
const eventOf = (message: JSONRPCMessage) => {
  if (!('method' in message) || message.method !== 'notifications/message') return undefined;
  const params = message.params;
  const data: unknown = params?.data;
  return params?.logger === EVENTS_LOGGER && typeof data === 'object' && data !== null
    ? { params, event: data }
    : undefined;
};

/**
 * The bytes the SDK writes for `message` on an SSE stream. An event notification is measured as its small envelope
 * with `null` for the event, plus the event's own remembered size in place of the null: the same count as the whole
 * message's, without serializing the event again for each session.
 */
export const sseFrameBytes = (message: JSONRPCMessage): number => {
  const notification = eventOf(message);
  if (notification === undefined) return FRAMING_BYTES + jsonBytes(message);
  const envelope = { ...message, params: { ...notification.params, data: null } };
  return FRAMING_BYTES + jsonBytes(envelope) - NULL_BYTES + bytesOfEvent(notification.event);
};
