import { PlanHubError } from '@planhub/shared';
import { z } from 'zod';
import { issueDetail } from '../documents/define.ts';

/**
 * The stored presence entries, declared once. Presence is read on every getWorkspace and by every dead node's taker,
 * so an entry that is not what it should be is skipped (no connection) and named, never thrown: one bad entry must
 * not fail every read of its workspace, nor keep a dead node from being taken.
 */

/** A Redis presence hash's value: connections, last seen, and which write of its node it is. */
const StoredEntrySchema = z.object({
  c: z.number().int().nonnegative(),
  at: z.string(),
  /** Which write of its node this is: a rewrite of an unchanged entry still differs from what a taker read. */
  w: z.number().int().optional(),
});
export type StoredEntry = z.infer<typeof StoredEntrySchema>;

/** A Redis presence hash's field: `[node, agent]`. */
const FieldSchema = z.tuple([z.string(), z.string()]);

/** A node's entry of one agent as the memory backend keeps it (and the file store's journal stores it). */
const NodeEntrySchema = z.object({
  agent_id: z.string(),
  connections: z.number().int().nonnegative(),
  last_seen_at: z.string(),
});

export const corruptEntry = (name: string, detail: string): PlanHubError =>
  new PlanHubError(
    'INTERNAL',
    `The stored presence entry ${name} is corrupt (${detail}); it is skipped, as no connection, until an operator ` +
      'repairs or deletes it.',
  );

type Decoded<T> = { ok: true; value: T } | { ok: false; detail: string };

const check = <T>(schema: z.ZodType<T>, raw: unknown): Decoded<T> => {
  const checked = schema.safeParse(raw);
  return checked.success ? { ok: true, value: checked.data } : { ok: false, detail: issueDetail(checked.error) };
};

const parse = <T>(schema: z.ZodType<T>, text: string): Decoded<T> => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, detail: 'not JSON' };
  }
  return check(schema, raw);
};

/**
 * Every getWorkspace reads its workspace's whole presence hash: a good entry (nearly all of them) is told by plain
 * checks, and the schema runs only on one that fails them, to say what is wrong with it. The checks say what the
 * schemas above say: change them together.
 */
const isField = (raw: unknown): raw is [string, string] =>
  Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'string' && typeof raw[1] === 'string';

const isStored = (raw: unknown): raw is StoredEntry => {
  const v = raw as Partial<StoredEntry> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isInteger(v.c) &&
    (v.c as number) >= 0 &&
    typeof v.at === 'string' &&
    (v.w === undefined || Number.isInteger(v.w))
  );
};

const parseQuickly = <T>(schema: z.ZodType<T>, good: (raw: unknown) => raw is T, text: string): Decoded<T> => {
  try {
    const raw: unknown = JSON.parse(text);
    if (good(raw)) return { ok: true, value: raw };
  } catch {
    return { ok: false, detail: 'not JSON' };
  }
  return parse(schema, text);
};

export const decodeField = (text: string): Decoded<{ node: string; agent: string }> => {
  const field = parseQuickly(FieldSchema, isField, text);
  return field.ok ? { ok: true, value: { node: field.value[0], agent: field.value[1] } } : field;
};
export const decodeStored = (text: string): Decoded<StoredEntry> => parseQuickly(StoredEntrySchema, isStored, text);
export const decodeNodeEntry = (raw: unknown): Decoded<z.infer<typeof NodeEntrySchema>> => check(NodeEntrySchema, raw);
