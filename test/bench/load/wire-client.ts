import type { CallAck, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { io, type Socket } from 'socket.io-client';
import { departed } from './departures.ts';

/**
 * The load generator speaks the wire protocol directly (docs/protocol.md) rather than through the SDK, so the client
 * does the same work against the floors and against PlanHub and the difference is the server's.
 */
export const openSocket = (url: string, auth?: Record<string, string>): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: 10_000,
      ...(auth ? { auth } : {}),
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(new Error(`connecting to ${url} failed: ${err.message}`));
    });
  });

export const openAgent = async (url: string, workspace: string, agentId: string, role = 'agent') => {
  const socket = await openSocket(url, { workspace, agent_id: agentId, role });
  // Only agents have presence: their departures are what a later run waits out.
  if (role === 'agent') socket.once('disconnect', departed);
  return socket;
};

export class CallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One "call" and its acknowledgement; a refusal throws with the server's code and message. */
export const call = async <N extends ToolName>(
  socket: Socket,
  tool: N,
  args: ToolArgs<N>,
  timeoutMs = 10_000,
): Promise<ToolResult<N>> => {
  const ack = (await socket.timeout(timeoutMs).emitWithAck('call', { tool, args })) as CallAck;
  if (!ack.ok) throw new CallError(ack.error.code, `${tool}: ${ack.error.code} ${ack.error.message}`);
  return ack.result as ToolResult<N>;
};
