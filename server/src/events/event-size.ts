import { randomUUID } from 'node:crypto';
import { MAX_EVENT_BYTES, PlanHubError, type NewEvent } from '@planhub/shared';
import { eventBytes } from './event-json.ts';
import { cappedFill } from '../store/fill.ts';
import type { Commit, FanIn, FillCap, Store } from '../store/store.ts';

/**
 * What stands in a `step_unblocked`'s `outputs` for a value left out to keep the event within the cap (its key is in
 * `outputs_omitted`). The value itself stays where it was stored: the step's received_outputs.
 */
export const OMITTED_OUTPUT = { omitted: 'too large for this event: getPlanStatus has it in received_outputs' };

const capOf = (maxBytes: number, omitted: string, field: string): FillCap => ({
  bytes: maxBytes,
  marker: JSON.stringify(OMITTED_OUTPUT),
  omitted,
  member: `,${JSON.stringify(`${field}_omitted`)}:${JSON.stringify(omitted)}`,
});

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A fired fan-in's events are made by the store, which splices the received outputs into them (a fill), so they
 * cannot be measured here: each `object` fill that is a top-level field of an event's payload (step_unblocked's
 * `outputs`, tools/dependents.ts) gets this cap, and that payload the member `<field>_omitted` the store fills with
 * what it left out, or removes. K outputs of 60 KB each made a 60·K KB event before: past about 140 of them, the
 * waiting agent was cut as a slow consumer by its own wake-up, and so was every subscriber replaying it.
 */
const capFanIn = (fanIn: FanIn, maxBytes: number): FanIn => {
  let events = fanIn.then.events;
  const fills = fanIn.then.fills.map((fill) => {
    if (fill.as !== 'object' || fill.cap) return fill;
    const omitted = `${fill.token}:omitted`;
    let field: string | undefined;
    events = events.map((event) => {
      const payload: unknown = event.payload;
      if (!isRecord(payload)) return event;
      const at = Object.keys(payload).find((k) => payload[k] === fill.token);
      if (at === undefined || Object.hasOwn(payload, `${at}_omitted`) || (field !== undefined && at !== field))
        return event;
      field = at;
      return { ...event, payload: { ...payload, [`${at}_omitted`]: omitted } };
    });
    return field === undefined ? fill : { ...fill, cap: capOf(maxBytes, omitted, field) };
  });
  return events === fanIn.then.events ? fanIn : { ...fanIn, then: { ...fanIn.then, events, fills } };
};

/**
 * A `step_unblocked` made whole by the call (a step waiting only on its own plan, or on steps that had all ended when
 * it was added) whose outputs take it past the cap: the same event a fan-in's capped fill makes, or undefined when it
 * is not one (or its outputs are not JSON).
 */
const cappedUnblock = (event: NewEvent, maxBytes: number): NewEvent | undefined => {
  const payload: unknown = event.payload;
  if (event.event_type !== 'step_unblocked' || !isRecord(payload) || !isRecord(payload.outputs)) return undefined;
  if (Object.hasOwn(payload, 'outputs_omitted')) return undefined;
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(payload.outputs)) {
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return undefined;
    entries.set(JSON.stringify(key), text);
  }
  const token = `@@planhub:outputs:${randomUUID()}@@`;
  const omitted = `${token}:omitted`;
  const tokenized = { ...event, payload: { ...payload, outputs: token, outputs_omitted: omitted } };
  const text = cappedFill(JSON.stringify(tokenized), token, entries, capOf(maxBytes, omitted, 'outputs'));
  return JSON.parse(text) as NewEvent;
};

const refusal = (event: NewEvent, bytes: number, maxBytes: number) =>
  new PlanHubError(
    'RESOURCE_EXHAUSTED',
    `This call would record a ${event.event_type} event of ${bytes} bytes; events may be at most ${maxBytes} ` +
      'bytes as JSON. Send less per call (fewer or shorter items), or store large data elsewhere and pass a ' +
      'reference.',
    { kind: 'event_bytes', limit: maxBytes, event_type: event.event_type },
  );

/**
 * Every event a store commits is at most `maxBytes` as JSON: a call whose events would be larger is refused before
 * anything is written (events are copied into every log, feed and subscriber, so their size multiplies). The one
 * exception is the received outputs a `step_unblocked` carries: many dependencies with large outputs are legitimate,
 * so the event carries those that fit and names the others in `outputs_omitted` (a marker in their place), whether
 * the call makes it (checked here) or a store's fan-in does (capped by the store: capFanIn).
 */
export const capEventSize = (store: Store, maxBytes = MAX_EVENT_BYTES): Store => {
  const capped = Object.create(store) as Store & { commit: Store['commit'] };
  capped.commit = (workspace, commit) => {
    let events: NewEvent[] | undefined;
    for (const [i, event] of commit.events.entries()) {
      const bytes = eventBytes(event);
      if (bytes <= maxBytes) continue;
      const smaller = cappedUnblock(event, maxBytes);
      if (smaller === undefined || eventBytes(smaller) > maxBytes)
        return Promise.reject(refusal(event, bytes, maxBytes));
      (events ??= [...commit.events])[i] = smaller;
    }
    const fanIns = commit.fanIns?.map((f) => capFanIn(f, maxBytes));
    if (events === undefined && !fanIns?.some((f, i) => f !== commit.fanIns?.[i]))
      return store.commit(workspace, commit);
    const changed: Commit = { ...commit, events: events ?? commit.events, ...(fanIns ? { fanIns } : {}) };
    return store.commit(workspace, changed);
  };
  return capped;
};
