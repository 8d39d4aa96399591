import { STATUS_CODES, ServerResponse, type IncomingMessage } from 'node:http';
import type { ErrorCode } from '@planhub/shared';
import { refuse, refusalBody } from './refuse.ts';

/**
 * Answers an engine.io handshake with PlanHub's refusal shape, `{ ok: false, error: { code, message } }`, instead of
 * engine.io's own (a 403 `{ code: 4 }` for polling, a `400 Bad Request` text/html for a WebSocket upgrade, whatever
 * the reason). An upgrade has no ServerResponse (engine.io passes a stand-in whose end() only destroys the socket),
 * so its answer is written on the socket itself. `retryAfterSeconds`, when given, goes out as Retry-After.
 */
export const refuseEngineRequest = (
  req: IncomingMessage,
  res: ServerResponse | object,
  answer: { status: number; code: ErrorCode; message: string; retryAfterSeconds?: number },
): void => {
  const retry = answer.retryAfterSeconds === undefined ? undefined : String(answer.retryAfterSeconds);
  const headers: Record<string, string> = retry === undefined ? {} : { 'retry-after': retry };
  if (res instanceof ServerResponse) return refuse(res, answer.status, answer.code, answer.message, headers);
  const body = refusalBody(answer.code, answer.message);
  const socket = req.socket;
  socket.on('error', () => {
    // The client may hang up before it reads the answer: nothing left to tell it.
  });
  if (!socket.writable) return void socket.destroy();
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(retry === undefined ? [] : [`Retry-After: ${retry}`]),
  ];
  // Destroyed once written: an upgraded socket has left the HTTP server, so none of its timeouts would close it.
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
};
