import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { EVENTS_LOGGER, sseFrameBytes } from '../../server/src/mcp/sse-frame-bytes.ts';
import { bigEvent } from '../helpers/big-event.ts';

/** What the SDK's writeSSEEvent writes for a message, measured the plain way. */
const written = (message: JSONRPCMessage) => Buffer.byteLength(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

const notify = (data: unknown, logger = EVENTS_LOGGER): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', logger, data },
});

describe('the size of a message on an MCP GET event stream', () => {
  it('is the bytes the SDK writes for it, event notification or not', () => {
    const events = [
      { ...bigEvent(1), event_id: '1-0' },
      { ...bigEvent(2, { payload: { result: 'Größe ✓ 😀 "quoted" \\ \n', error: null } }), event_id: '2-0' },
    ];
    const messages: JSONRPCMessage[] = [
      ...events.map((event) => notify(event)),
      notify({ text: 'ü' }, 'other'),
      notify('a plain string'),
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'ping', id: 7 },
    ];
    for (const message of messages) expect(sseFrameBytes(message)).toBe(written(message));
  });

  it('serializes an event once, however many sessions it is sent to', () => {
    let serialized = 0;
    const event = { event_id: '3-0', payload: { result: 'é'.repeat(1000) } };
    const counted = {
      ...event,
      toJSON: () => {
        serialized++;
        return event;
      },
    };
    // Each session's notification is its own message around the one event object the hub handed them all.
    const sizes = Array.from({ length: 5 }, () => sseFrameBytes(notify(counted)));
    expect(serialized).toBe(1);
    expect(new Set(sizes)).toEqual(new Set([written(notify(event))]));
  });
});
