import type { Fill } from './store.ts';

/** How both stores order a hash's entries in a fill: by the field's bytes, as Lua's string comparison does. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The JSON text a fill puts in place of its token (entries: JSON-encoded field → JSON value). */
export const fillText = (entries: ReadonlyMap<string, string> | undefined, as: Fill['as']): string => {
  const fields = [...(entries?.keys() ?? [])].sort(byBytes);
  return as === 'keys'
    ? `[${fields.join(',')}]`
    : `{${fields.map((f) => `${f}:${entries?.get(f) ?? 'null'}`).join(',')}}`;
};

/** Replaces every occurrence of the token's JSON string literal in `json` (the Lua script does the same). */
export const applyFill = (json: string, token: string, text: string): string =>
  json.split(JSON.stringify(token)).join(text);

/** The answer as the fan-ins' outcome completes it (see FanIn.answer); the stores and transact share it. */
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
