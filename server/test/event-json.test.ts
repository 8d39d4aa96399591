import type { NewEvent } from '@planhub/shared';
import { serializedBytes, withEventId } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { envelopeBytes, envelopeJson, eventBytes, eventJson } from '../src/events/event-json.ts';

const event = (extra: Record<string, unknown> = {}) =>
  ({
    event_type: 'step_completed',
    workspace: 'w',
    agent_id: 'a1',
    plan_id: 'p1',
    step_id: 'step_1',
    timestamp: '2026-11-26T00:00:00.000Z',
    payload: { result: 'done', note: 'naïve 日本 😀', nested: [1, { deep: null }] },
    ...extra,
  }) as unknown as NewEvent;

describe('event JSON, made once per event', () => {
  it('is the JSON of the event, in UTF-8 bytes as serializedBytes counts it', () => {
    for (const e of [event(), event({ skipped: undefined }), {} as NewEvent]) {
      expect(eventJson(e)).toBe(JSON.stringify(e));
      expect(eventBytes(e)).toBe(serializedBytes(e));
    }
  });

  it('stringifies an event once however often it is asked', () => {
    const e = event();
    const spy = { count: 0 };
    const original = JSON.stringify;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
      spy.count += 1;
      return original(...args);
    }) as typeof JSON.stringify;
    try {
      eventJson(e);
      eventBytes(e);
      eventJson(e);
    } finally {
      JSON.stringify = original;
    }
    expect(spy.count).toBe(1);
  });

  it('counts what JSON cannot hold as infinitely large, and eventJson throws on it as JSON.stringify does', () => {
    const e = event({ payload: { big: 1n } });
    expect(eventBytes(e)).toBe(Number.POSITIVE_INFINITY);
    expect(() => eventJson(e)).toThrow(TypeError);
  });

  it('makes the JSON of withEventId and counts its bytes from the event’s own text', () => {
    const events = [event(), event({ skipped: undefined }), {} as NewEvent, { only: undefined } as unknown as NewEvent];
    for (const e of events) {
      const expected = JSON.stringify(withEventId('1764115200000-3', e));
      expect(envelopeJson('1764115200000-3', e)).toBe(expected);
      expect(envelopeBytes('1764115200000-3', e)).toBe(Buffer.byteLength(expected, 'utf8'));
      expect(envelopeBytes('1764115200000-3', e)).toBe(serializedBytes(withEventId('1764115200000-3', e)));
    }
  });

  it('keeps an event_id the event names in its own place, as withEventId does', () => {
    const e = event({ event_id: 'theirs' });
    expect(envelopeJson('9-9', e)).toBe(JSON.stringify(withEventId('9-9', e)));
    expect(envelopeBytes('9-9', e)).toBe(serializedBytes(withEventId('9-9', e)));
  });

  it('counts an envelope of an event JSON cannot hold as infinitely large', () => {
    expect(envelopeBytes('1-0', event({ payload: { big: 2n } }))).toBe(Number.POSITIVE_INFINITY);
  });
});
