import { createHash } from 'node:crypto';
import { corruptRecord } from './corrupt-stored.ts';
import { stringify } from 'safe-stable-stringify';

/**
 * What a `request_id` is bound to: the tool and its arguments. The arguments are hashed as canonical JSON (keys
 * sorted), so the same call spelled with its keys in another order is still a retry. Dispatch hashes them as the
 * client sent them (without request_id), not as parsed: versions that parse a call differently (a field one of them
 * does not know, a default it fills in) still take a retry sent to another node for the same call. Builds before
 * that hashed the parsed arguments; an answer they remembered is still accepted (transact.ts, `earlierFingerprint`).
 */
export const requestFingerprint = (tool: string, args: unknown): string =>
  `${tool}:${createHash('sha256')
    .update(stringify(args ?? null) ?? 'null')
    .digest('base64url')}`;

/** The tool a fingerprint names (what the refusal tells the caller the request_id was used for). */
export const fingerprintTool = (fingerprint: string): string => fingerprint.slice(0, fingerprint.lastIndexOf(':'));

/*
 * A remembered answer is stored as text: `#<fingerprint>\n<answer JSON>`. JSON text never starts with `#`, so an
 * answer remembered before fingerprints existed (bare JSON) is still read, and replays whatever the call.
 */
const MARK = '#';

export const encodeRemembered = (fingerprint: string | undefined, answerJson: string): string =>
  fingerprint === undefined ? answerJson : `${MARK}${fingerprint}\n${answerJson}`;

export interface Remembered {
  answer: unknown;
  /** Absent for an answer remembered before fingerprints existed. */
  fingerprint?: string;
}

/** `request` names the answer if its text is not what encodeRemembered wrote (INTERNAL, not a bare SyntaxError). */
export const decodeRemembered = (text: string, request: { agent_id: string; request_id: string }): Remembered => {
  const marked = text.startsWith(MARK);
  const newline = marked ? text.indexOf('\n') : -1;
  try {
    if (!marked) return { answer: JSON.parse(text) as unknown };
    if (newline < 0) throw new SyntaxError('no newline after the fingerprint');
    return { fingerprint: text.slice(MARK.length, newline), answer: JSON.parse(text.slice(newline + 1)) as unknown };
  } catch {
    throw corruptRecord('remembered answer', `req:${request.agent_id}:${request.request_id}`, 'not JSON');
  }
};
