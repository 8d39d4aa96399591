import { corruptDocument } from '../documents/define.ts';
import { corruptRecord, isVersionText, shortName } from '../corrupt-stored.ts';

/**
 * How the file store lays a workspace out in its engine, one named database per kind (all in one environment, so a
 * commit writes them in one transaction): documents as `<version> <json>`, a set as the JSON array of its members, a
 * hash as a JSON object, a counter as its number, a sorted set as the JSON array of its [member, score] pairs in order, an event as its envelope's JSON, a remembered request as
 * `<expires ms> <text>`, and one meta record per workspace with the log's clock and the quota's byte counts.
 */
export interface WorkspaceMeta {
  /** The last event id given out, `<lastMs>-<lastSeq>`: ids keep growing across restarts, whatever the clock. */
  lastMs: number;
  lastSeq: number;
  /** Events kept in the log, and their JSON bytes. */
  events: number;
  eventBytes: number;
  /** UTF-8 bytes of the documents' JSON. */
  docBytes: number;
  /** The newest event id retention removed (Store.trimmedThrough); absent while none was. */
  trimmedThrough?: string;
}

export const emptyMeta = (): WorkspaceMeta => ({ lastMs: 0, lastSeq: -1, events: 0, eventBytes: 0, docBytes: 0 });

/** The engine's databases as the store reads and writes them (string values throughout). */
export interface Table {
  get(key: string): string | undefined;
  put(key: string, value: string): unknown;
  remove(key: string): unknown;
  getRange(options: {
    start?: string;
    end?: string;
    reverse?: boolean;
    limit?: number;
  }): Iterable<{ key: unknown; value: string }>;
}

export interface Tables {
  docs: Table;
  sets: Table;
  hashes: Table;
  counters: Table;
  zsets: Table;
  events: Table;
  requests: Table;
  /**
   * `<expires, fixed width>` SEP `<request entry key>` → its entry in `requestOrder`: the request log by expiry. Stores
   * of earlier builds hold '' or the request entry key as the value.
   */
  expiries: Table;
  meta: Table;
  /** Each agent's remembered requests in answer order, and their counts (request-order.ts). */
  requestOrder: Table;
}

export const encodeDoc = (version: number, json: string): string => `${version} ${json}`;

/** `key` names the document if its text is not `<version> <json>` (a version that is not a number would conflict forever). */
export const decodeDoc = (text: string | undefined, key: string): { version: number; json: string } | undefined => {
  if (text === undefined) return undefined;
  const space = text.indexOf(' ');
  const version = text.slice(0, Math.max(0, space));
  if (!isVersionText(version))
    throw corruptDocument(
      key,
      space < 0 ? 'it has no version' : `its version ${JSON.stringify(shortName(version))} is not a number`,
    );
  return { version: Number(version), json: text.slice(space + 1) };
};

/**
 * A stored record's JSON (a set, hash or sorted set's, or the workspace record), checked to be of the JSON type the
 * store writes there; anything else answers INTERNAL naming the record rather than a bare SyntaxError or a misread.
 */
export const parseRecord = <T>(text: string, what: string, key: string, kind: 'array' | 'object'): T => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corruptRecord(what, key, 'not JSON');
  }
  const isArray = Array.isArray(value);
  if (typeof value !== 'object' || value === null || isArray !== (kind === 'array'))
    throw corruptRecord(what, key, `not a JSON ${kind}`);
  return value as T;
};

export const encodeRequest = (expires: number, text: string): string => `${expires} ${text}`;

export const decodeRequest = (value: string | undefined): { expires: number; text: string } | undefined => {
  if (value === undefined) return undefined;
  const space = value.indexOf(' ');
  return { expires: Number(value.slice(0, space)), text: value.slice(space + 1) };
};

export const readMeta = (text: string | undefined, workspace: string): WorkspaceMeta =>
  text === undefined
    ? emptyMeta()
    : { ...emptyMeta(), ...parseRecord<Partial<WorkspaceMeta>>(text, 'workspace record', workspace, 'object') };
