import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ErrorCode } from '@planhub/shared';
import { closeIfEarly } from './early-answer.ts';

/** The body of every refusal, `{ ok: false, error: { code, message } }`, as one line of JSON. */
export const refusalBody = (code: ErrorCode, message: string): string =>
  `${JSON.stringify({ ok: false, error: { code, message } })}\n`;

/**
 * A refusal in the shape every other answer of PlanHub has: `{ ok: false, error: { code, message } }`. Sent before
 * the request's body has all arrived, it says `Connection: close` (see closeIfEarly).
 */
export const refuse = (
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: OutgoingHttpHeaders = {},
): void => {
  // A route that failed after it began its answer can only end it.
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', ...closeIfEarly(res) })
    .end(refusalBody(code, message));
};
