import { byBytes } from '../core/byte-order.ts';
import { textBytes } from '../limits/text-bytes.ts';
import type { Fill, FillCap } from './store.ts';

/** The JSON text a fill puts in place of its token (entries: JSON-encoded field → JSON value), by the field's bytes. */
export const fillText = (entries: ReadonlyMap<string, string> | undefined, as: Fill['as']): string => {
  const fields = [...(entries?.keys() ?? [])].sort(byBytes);
  return as === 'keys'
    ? `[${fields.join(',')}]`
    : `{${fields.map((f) => `${f}:${entries?.get(f) ?? 'null'}`).join(',')}}`;
};

/** Replaces every occurrence of the token's JSON string literal in `json` (the Lua script does the same). */
export const applyFill = (json: string, token: string, text: string): string =>
  json.split(JSON.stringify(token)).join(text);

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

/**
 * `json` (an event's text) with the `object` fill of `entries` spliced in within `cap` (store.ts, FillCap). Beside the
 * whole text it costs a pass over the entries' lengths, and only for an event the whole fill takes past the cap.
 * commit.lua's `capped_fill` computes the same text.
 */
export const cappedFill = (
  json: string,
  token: string,
  entries: ReadonlyMap<string, string> | undefined,
  cap: FillCap,
): string => {
  const literal = JSON.stringify(token);
  const n = occurrences(json, literal);
  const m = occurrences(json, cap.member);
  // The text's bytes counted rather than made: the text without the token and the member, the object n times, and
  // the member m times while it lists any field.
  const fixed = textBytes(json) - n * textBytes(literal) - m * textBytes(cap.member);
  const whole = fillText(entries, 'object');
  if (fixed + n * textBytes(whole) <= cap.bytes) return applyFill(json.split(cap.member).join(''), token, whole);
  const sorted = [...(entries ?? [])]
    .sort(([a], [b]) => byBytes(a, b))
    .map(([field, value]) => ({ field, value, fieldBytes: textBytes(field), valueBytes: textBytes(value) }));
  const markerBytes = textBytes(cap.marker);
  const count = sorted.length;
  const fields = sorted.reduce((a, e) => a + e.fieldBytes, 0);
  const objectBytes = 2 + fields + count + Math.max(count - 1, 0);
  const memberBytes = textBytes(cap.member) - textBytes(JSON.stringify(cap.omitted)) + 2;
  let spliced = count * markerBytes;
  let listed = fields;
  let left = count;
  const size = () => fixed + n * (objectBytes + spliced) + m * (left === 0 ? 0 : memberBytes + listed + left - 1);
  let current = size();
  const keep = sorted.map((e) => {
    spliced += e.valueBytes - markerBytes;
    listed -= e.fieldBytes;
    left -= 1;
    const next = size();
    if (next <= cap.bytes || next <= current) {
      current = next;
      return true;
    }
    spliced -= e.valueBytes - markerBytes;
    listed += e.fieldBytes;
    left += 1;
    return false;
  });
  const object = `{${sorted.map((e, i) => `${e.field}:${keep[i] ? e.value : cap.marker}`).join(',')}}`;
  const omitted = sorted.filter((_, i) => !keep[i]).map((e) => e.field);
  const text =
    omitted.length === 0 ? json.split(cap.member).join('') : applyFill(json, cap.omitted, `[${omitted.join(',')}]`);
  return applyFill(text, token, object);
};

/**
 * An event's text with a fired fan-in's fills spliced in: the plain ones first, then each capped one within its cap
 * (a document's text gets every fill whole).
 */
export const fillEvent = (
  json: string,
  fills: readonly Fill[],
  entriesOf: (hash: string) => ReadonlyMap<string, string> | undefined,
): string => {
  let text = json;
  for (const f of fills) if (!f.cap) text = applyFill(text, f.token, fillText(entriesOf(f.hash), f.as));
  for (const f of fills) if (f.cap) text = cappedFill(text, f.token, entriesOf(f.hash), f.cap);
  return text;
};

/**
 * The answer's JSON as the fan-ins' outcome completes it (see FanIn.answer): the text the stores remember for a
 * retry. The answer handed back is completed by fillAnswerValue below.
 */
export const fillAnswer = (
  json: string,
  fanIns: readonly { answer?: { token: string; value: unknown } }[],
  fired: readonly boolean[],
): string =>
  fanIns.reduce(
    (text, f, i) =>
      f.answer ? applyFill(text, f.answer.token, fired[i] ? JSON.stringify(f.answer.value) : 'null') : text,
    json,
  );

/**
 * `fillAnswer` on the answer itself rather than its JSON, for the answer a call hands back: every string equal to a
 * token becomes the fan-in's value (or null). Only the objects and arrays on the way to a token are copied. A round
 * trip of the answer through JSON, as the stores' remembered text takes, was 3 % of a fan-in's CPU.
 */
export const fillAnswerValue = <R>(
  answer: R,
  fanIns: readonly { answer?: { token: string; value: unknown } }[],
  fired: readonly boolean[],
): R => {
  // Every call's answer comes through here; most have no fan-in answer to put in, and cost nothing more.
  if (!fanIns.some((f) => f.answer)) return answer;
  const by = new Map<string, unknown>();
  fanIns.forEach((f, i) => {
    if (f.answer) by.set(f.answer.token, fired[i] ? f.answer.value : null);
  });
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return by.has(value) ? by.get(value) : value;
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      const items: readonly unknown[] = value;
      let copy: unknown[] | undefined;
      items.forEach((item, i) => {
        const filled = fill(item);
        if (filled !== item) (copy ??= [...items])[i] = filled;
      });
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const filled = fill(item);
      if (filled !== item) (copy ??= { ...value })[key] = filled;
    }
    return copy ?? value;
  };
  return fill(answer) as R;
};
