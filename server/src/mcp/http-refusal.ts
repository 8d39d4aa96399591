import type { ServerResponse } from 'node:http';
import type { ErrorCode, ErrorShape } from '@planhub/shared';
import { closeIfEarly } from '../transport/early-answer.ts';

const STATUS: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  DEADLINE_EXCEEDED: 408,
  UNAVAILABLE: 503,
  DATA_LOSS: 503,
};

/**
 * A JSON-RPC error answered before the SDK sees the request, in the shape MCP clients read. A request whose body is
 * left unread (a 413, an early refusal) is told its connection ends (closeIfEarly).
 */
export const writeJsonRpcError = (
  res: ServerResponse,
  status: number,
  error: { code: number; message: string; data?: unknown },
  headers: Record<string, string> = {},
): void => {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers, ...closeIfEarly(res) })
    .end(JSON.stringify({ jsonrpc: '2.0', error, id: null }));
};

const retryAfterMsOf = (details: unknown): number | undefined => {
  const ms = (details as { retry_after_ms?: unknown } | undefined)?.retry_after_ms;
  return typeof ms === 'number' && ms >= 0 ? ms : undefined;
};

/**
 * A refusal before any MCP session handles the request, as the JSON-RPC error body MCP clients read (they put the
 * body's text into the error they throw), with the PlanHub code in front of the message. A refusal with details
 * (`retry_after_ms`) carries them as the error's `data`, beside the code, and a wait as Retry-After (whole seconds,
 * at least 1), which plain HTTP clients and proxies read. `status` replaces the code's own HTTP status (413 for a
 * body too large in shape: 429 would read as "retry later", and a retry of it fails alike).
 */
export const refuseHttp = (res: ServerResponse, error: ErrorShape, status = STATUS[error.code] ?? 500): void => {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer realm="planhub"' } : {};
  const retryAfterMs = retryAfterMsOf(error.details);
  if (retryAfterMs !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  const data =
    typeof error.details === 'object' && error.details !== null ? { code: error.code, ...error.details } : undefined;
  writeJsonRpcError(
    res,
    status,
    { code: -32001, message: `${error.code}: ${error.message}`, ...(data ? { data } : {}) },
    headers,
  );
};
