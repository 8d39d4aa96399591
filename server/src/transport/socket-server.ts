import type { Server as HttpServer } from 'node:http';
import type { Caller, DisconnectReason, EventEnvelope } from '@planhub/shared';
import type { Logger } from 'pino';
import { Server } from 'socket.io';
import type { ServerConfig } from '../config.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { Store } from '../store/store.ts';
import { readSubscriptions } from '../tools/subscriptions-doc.ts';
import type { Dispatch } from '../tools/dispatch.ts';
import { toConnectError, type Authenticate } from './authenticate.ts';
import { EventStream } from './event-stream.ts';
import { originGuard } from './origin-guard.ts';
import type { CallAdmission } from './call-admission.ts';
import { clientAddressOf } from './client-address.ts';
import { capConnections } from './connection-caps.ts';
import { capEngineConnections } from './engine-caps.ts';
import { guardEngineOrigins } from './engine-origin-guard.ts';
import { throttledLog } from '../throttled-log.ts';
import { admitDecoder, callArgument, guardedParser } from './frame-guard.ts';
import { withCanonicalTool } from '../tools/tool-alias.ts';
import type { OriginCheck } from './origin-policy.ts';
import type { AddressOutbound } from './address-outbound.ts';
import { guardOutbound } from './outbound-limit.ts';
import { CallsInFlight } from './calls-in-flight.ts';
import { pauseReading } from './read-pause.ts';

/** How long a transport connection may stay open without connecting a socket (it holds a slot meanwhile). */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The heartbeat: a ping every PING_INTERVAL_MS, and a connection that answers none for PING_TIMEOUT_MS more is
 * closed. socket.io's defaults (25 s + 20 s) left a dashboard whose network path went silent (no reset, packets
 * dropped) showing "live" and stale statuses for 42 s; with these a client notices within 20 s, and the node frees
 * the connection as soon. A client's event loop may be busy for seconds without being cut.
 */
const PING_INTERVAL_MS = 10_000;
const PING_TIMEOUT_MS = 10_000;

/** What the node's operations learn of outbound queues (metrics). */
export interface OutboundObserver {
  peak(bytes: number): void;
  addressPeak(bytes: number): void;
  cut(reason: DisconnectReason): void;
}

interface ServerToClient {
  event: (event: EventEnvelope) => void;
  disconnect_reason: (reason: DisconnectReason) => void;
}

interface SocketData {
  caller: Caller;
}

/** The only code that speaks socket.io: handshake, the "call" event, and teardown. */
export const attachSocketServer = (
  http: HttpServer,
  deps: {
    config: ServerConfig;
    log: Logger;
    dispatch: Dispatch;
    authenticate: Authenticate;
    originPolicy: OriginCheck;
    hub: EventHub;
    store: Store;
    outbound?: OutboundObserver;
    /** What the node queues per client address (shared with the MCP event streams). */
    addressOutbound: AddressOutbound;
    /** The per-address call budget (shared with /mcp, so an address spends one budget through either door). */
    admission: CallAdmission;
    /** A call's answer went out as `bytes` (its cost to the caller's budget: limits/answer-cost.ts). */
    answered?: (caller: Caller, bytes: number) => void;
  },
) => {
  const log = deps.log.child({ module: 'socket' });
  const io = new Server<Record<string, never>, ServerToClient, Record<string, never>, SocketData>(http, {
    maxHttpBufferSize: deps.config.limits.payloadBytes,
    serveClient: false,
    cors: { origin: false },
    parser: guardedParser({
      maxValues: deps.config.limits.frameValues,
      maxDepth: deps.config.limits.argsDepth,
      maxPacketBytes: deps.config.limits.payloadBytes,
    }),
    // A transport connection that never connects a socket is closed after this (socket.io's default is 45 s).
    connectTimeout: CONNECT_TIMEOUT_MS,
    pingInterval: PING_INTERVAL_MS,
    pingTimeout: PING_TIMEOUT_MS,
  });
  const { admission } = deps;
  const caps = { perAddress: deps.config.limits.connectionsPerAddress, perNode: deps.config.limits.connectionsPerNode };
  // Behind a trusted balancer, the client it forwards for; every per-address count and log uses this one answer.
  const addressOf = clientAddressOf(deps.config.trustedProxies);
  const refused = throttledLog(log);
  // Origins first: a request the policy refuses is never counted against its address.
  guardEngineOrigins(io, deps.originPolicy, { refused });
  capEngineConnections(io, caps, { refused, addressOf });
  const { addressOutbound } = deps;

  // The caps first: they count every CONNECT that later steps answer (connection-caps.ts).
  io.use(capConnections(caps, { refused, addressOf }));
  io.use(originGuard(deps.originPolicy, refused));
  io.use((socket, next) => {
    deps.authenticate(socket.handshake.auth).then(
      (caller) => {
        socket.data.caller = caller;
        next();
      },
      (err: unknown) => {
        refused('info', { reason: err instanceof Error ? err.message : String(err) }, 'handshake refused');
        next(toConnectError(err));
      },
    );
  });

  io.on('connection', (socket) => {
    admitDecoder(socket);
    const { caller } = socket.data;
    const abort = new AbortController();
    const address = addressOf(socket.request);
    const outbound = guardOutbound(socket, {
      maxBytes: deps.config.limits.outboundBytes,
      graceMs: deps.config.slowConsumerGraceMs,
      join: (member) => addressOutbound.join(address, member),
      onCut: (reason) => {
        log.warn({ agent_id: caller.agent_id, socket: socket.id, queued_bytes: reason.queued_bytes }, reason.message);
        deps.outbound?.cut(reason);
      },
    });
    const stream = new EventStream({
      viewer: caller,
      hub: deps.hub,
      store: deps.store,
      send: (event) => {
        outbound.send(() => socket.emit('event', event));
        deps.outbound?.peak(outbound.peak);
        deps.outbound?.addressPeak(addressOutbound.peak);
      },
      loadSubscriptions: () => readSubscriptions(deps.store, caller.workspace, caller.agent_id),
      pace: () => outbound.drained(),
    });
    log.debug({ agent_id: caller.agent_id, workspace: caller.workspace, socket: socket.id }, 'connected');
    const inFlight = new CallsInFlight();
    const pause = pauseReading(socket);
    // socket.io appends the acknowledgement as the last argument, whatever else a (hostile) client sent before it.
    socket.on('call', (...args: unknown[]) => {
      const ack = args.at(-1);
      if (typeof ack !== 'function') return;
      const reply = (answer: unknown) => outbound.answer(() => (ack as (a: unknown) => void)(answer));
      const release = inFlight.take();
      // Past the connection's bound: answered here, with nothing charged or asked of the store (calls-in-flight.ts),
      // and the socket goes unread for a moment (read-pause.ts).
      if (release === undefined) {
        pause();
        try {
          reply({ ok: false, error: inFlight.refusal() });
        } catch (err) {
          log.error({ err, socket: socket.id }, 'acknowledgement failed');
        }
        return;
      }
      const framed = args.length > 1 ? args[0] : undefined;
      const raw = withCanonicalTool(callArgument(framed));
      // An ack that throws (socket gone mid-encode) must not become an unhandled rejection that kills the node.
      admission
        .refuse(framed, caller, address)
        .then((error) =>
          error !== undefined
            ? { ok: false as const, error }
            : deps.dispatch(
                { caller, signal: abort.signal, connection: stream.hooks, cost: admission.costOf(framed) },
                raw,
              ),
        )
        // Bounded like events: a client that keeps calling and never reads the answers (large getTaskEvents pages,
        // say) is cut as a slow consumer instead of growing the node's buffers without end.
        .then((answer) => deps.answered?.(caller, reply(answer)))
        .catch((err: unknown) => log.error({ err, socket: socket.id }, 'acknowledgement failed'))
        .finally(release);
    });
    socket.on('disconnect', () => {
      abort.abort();
      stream.close();
    });
  });

  return io;
};
