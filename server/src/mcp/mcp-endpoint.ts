import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { MCP_EVENT_CURSOR_HEADER, PlanHubError, type Caller } from '@planhub/shared';
import { clippedShape, toPlanHubError } from '../errors/to-error-shape.ts';
import type { Route } from '../transport/http-routes.ts';
import { refuseHttp } from './http-refusal.ts';
import { answerNoStore } from './no-store.ts';
import type { McpSession, McpSessionDeps } from './mcp-session.ts';
import { openMcpSession } from './mcp-session.ts';
import { bodyAuth } from './body-cost.ts';
import { readJsonBody } from './request-body.ts';
import { REVOKED, type TokenPolicy } from '../auth/token-admission.ts';
import { identify, sameCaller } from './session-identity.ts';
import { TokenHolders } from '../auth/token-holders.ts';
import { SessionRegistry } from './session-registry.ts';
import { admitSession, type AdmissionCaps, type Cap } from './session-admission.ts';
import { isHandshakeOnly } from './handshake-message.ts';
import { parseDialects } from './tool-list.ts';
import { clientAddressOf } from '../transport/client-address.ts';
import { BODY_DEADLINE_MS, createBodyBudget } from './body-budget.ts';
import { callCost } from '../transport/call-admission.ts';

/** An MCP host may pause a conversation for a long time; after this its session is closed and it re-initializes. */
export const DEFAULT_MCP_IDLE_MS = 30 * 60_000;
/** A host that is there uses its session at once (lists tools, opens its stream); one that did not has gone. */
export const DEFAULT_MCP_UNUSED_MS = 60_000;
/** Long enough for a host to send its first request after the initialize answer, short for one that restarted. */
export const DEFAULT_MCP_NEW_SESSION_MS = 5_000;
const MAX_SESSIONS_PER_NODE = 10_000;

export interface McpEndpointOptions {
  /** How long a session may go without a request before it is closed (default 30 minutes). */
  idleMs?: number;
  /**
   * How long a session that made no request after its initialize, and holds no open event stream, lives
   * (default 1 minute, at most idleMs).
   */
  unusedMs?: number;
  /** How long a new session is safe from being ended to admit another of its agent or address (default 5 s). */
  newSessionMs?: number;
  /** The clock idle time is measured on (tests move it). */
  now?: () => number;
}

export interface McpEndpoint {
  route: Route;
  close(): Promise<void>;
}

/** A full cap that nothing could be ended for: says which, and when to try again (also as Retry-After). */
const refusal = (cap: Cap, retryAfterMs: number, caps: AdmissionCaps, agent: string, address: string) => {
  const young = `opened less than ${Math.ceil(caps.newSessionMs / 1000)} s ago`;
  const held = {
    agent:
      `Agent ${agent} already has ${caps.agent} MCP sessions on this node, each with a request in progress, an ` +
      `open event stream, or ${young}`,
    address: `Address ${address} already has ${caps.address} MCP sessions on this node, each used or ${young}`,
    node: `This node holds ${caps.node} MCP sessions, its most, none of them past its idle time`,
  }[cap];
  const instead = cap === 'node' ? 'or open the session on another node' : 'or end one of them (DELETE)';
  const retry = `retry in ${Math.ceil(retryAfterMs / 1000)} s`;
  return new PlanHubError('RESOURCE_EXHAUSTED', `${held}: ${retry}, ${instead}.`, { retry_after_ms: retryAfterMs });
};

/**
 * `/mcp`: MCP over Streamable HTTP. A POST without a session id opens a session for the agent the request names
 * (bearer token, or ?workspace=&agent_id= in open mode); every later request carries the session id the initialize
 * answer gave. Sessions live on the node that opened them, so a balancer in front of several nodes must keep a
 * session's requests on one node (the events themselves come from the shared log, whatever node wrote them).
 */
export const createMcpEndpoint = (
  deps: McpSessionDeps,
  tokens: TokenPolicy,
  options: McpEndpointOptions = {},
): McpEndpoint => {
  const { config } = deps.services;
  const log = deps.log.child({ module: 'mcp' });
  const auth = { secret: config.secret, tokens };
  const addressOf = clientAddressOf(config.trustedProxies);
  const registry = new SessionRegistry({
    idleMs: options.idleMs ?? DEFAULT_MCP_IDLE_MS,
    unusedMs: options.unusedMs ?? DEFAULT_MCP_UNUSED_MS,
    ...(options.now ? { now: options.now } : {}),
  });
  // Secret mode: a session holds only while the token of its latest request does, as a socket connection does.
  const sessionTokens = new TokenHolders<string>(tokens.revocations, (id, why) => {
    log.info({ session: id }, `token ${why}; closing its MCP session`);
    void registry.get(id)?.close();
  });
  let closed = false;
  const bodyBudget = createBodyBudget(config.limits.payloadBytes);

  /**
   * A body over limits.frameValues, refused unparsed in the socket door's words (transport/json-scan.ts): HTTP 413
   * with `RESOURCE_EXHAUSTED: The request has more than …`. Its bytes are charged to the client's address first, as
   * a socket frame refused the same way is, so sending such bodies is not free; past the budget, the budget's
   * refusal (429, Retry-After) is the answer instead.
   */
  const refuseValues = async (
    res: ServerResponse,
    body: { tooManyValues: string; bytes: number },
    caller: Caller,
    address: string,
  ) => {
    const overBudget = await deps.admission?.charge(callCost(body.bytes), caller, address);
    log.info(
      { agent_id: caller.agent_id, bytes: body.bytes, over_budget: !!overBudget },
      'mcp request refused unparsed',
    );
    if (overBudget) refuseHttp(res, overBudget);
    else refuseHttp(res, { code: 'RESOURCE_EXHAUSTED', message: body.tooManyValues }, 413);
  };

  /**
   * A POST's body, read here (within payloadBytes) rather than by the SDK so its call is charged by the bytes that
   * came, chunked or not; undefined when the request was answered already (too large, too many values, not JSON,
   * client gone).
   */
  const readBody = async (req: IncomingMessage, res: ServerResponse, caller: Caller) => {
    if (req.method !== 'POST') return { parsed: undefined };
    const address = addressOf(req);
    const hold = bodyBudget.open(address);
    const body = await readJsonBody(req, res, config.limits.payloadBytes, {
      maxValues: config.limits.frameValues,
      admit: (bytes) => hold.add(bytes),
      deadlineMs: BODY_DEADLINE_MS,
      late: () =>
        new PlanHubError(
          'DEADLINE_EXCEEDED',
          `The request body did not arrive whole within ${BODY_DEADLINE_MS / 1000} s; send it again at once.`,
        ),
    }).finally(() => hold.release());
    if (!body.ok) {
      if (body.tooManyValues !== undefined) await refuseValues(res, body, caller, address);
      return undefined;
    }
    (req as IncomingMessage & { auth?: AuthInfo }).auth = bodyAuth(body.bytes);
    return body;
  };

  /**
   * The session a request names. In secret mode the request proves its identity first, found session or not: a
   * session id alone is not a credential, and a token revoked since its session was closed is told so (401) rather
   * than sent to open another (404). The token the session holds is not looked up again (see identify); another
   * one is, and replaces it once it passes, as a host renewing its token does. The hold refuses a token whose
   * revocation was announced after its lookup answered, and the session keeps the token it held.
   */
  const sessionOf = async (req: IncomingMessage, id: string, query: URLSearchParams): Promise<McpSession> => {
    const identified =
      config.secret === undefined
        ? undefined
        : await identify(req, query, auth, (token) => sessionTokens.holds(id, token));
    const session = registry.get(id);
    if (!session)
      throw new PlanHubError(
        'NOT_FOUND',
        'MCP session not found (it expired, was deleted, or lives on another node): initialize a new session.',
      );
    if (identified === undefined) return session;
    if (!sameCaller(identified.caller, session.caller))
      throw new PlanHubError('PERMISSION_DENIED', 'This MCP session belongs to another agent; use your own session.');
    if (identified.token && !sessionTokens.hold(id, identified.token))
      throw new PlanHubError('UNAUTHENTICATED', REVOKED);
    return session;
  };

  const existing = async (req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams) => {
    const session = await sessionOf(req, id, query);
    // The GET stream is not a request in progress: it keeps the session alive only while its client reads it.
    if (req.method === 'GET') {
      answerNoStore(res);
      session.stream.watch(res);
      await session.transport.handleRequest(req, res);
    } else
      await registry.track(id, async () => {
        const body = await readBody(req, res, session.caller);
        if (!body) return;
        if (!isHandshakeOnly(body.parsed)) registry.markUsed(id);
        await session.transport.handleRequest(req, res, body.parsed);
      });
  };

  const opening = async (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    if (req.method !== 'POST')
      throw new PlanHubError('INVALID_ARGUMENT', 'No mcp-session-id header: open a session with an initialize POST.');
    const { caller, token } = await identify(req, query, auth);
    const dialects = parseDialects(query.get('dialects'));
    // Before the check: the check and the reservation must not be an await apart.
    const body = await readBody(req, res, caller);
    if (!body) return;
    // Revoked while its body came, after the lookup: refused before a session is opened for it.
    if (token?.jti !== undefined && tokens.revocations.announced(token.jti))
      throw new PlanHubError('UNAUTHENTICATED', REVOKED);
    // Three caps, each named in its own refusal: the agent's, the client address's (as connectionsPerAddress caps its
    // sockets, so one address cannot take every session the node has), and the node's. A full cap first ends a
    // session left behind (session-admission.ts), so abandoned sessions lock nobody out.
    const address = addressOf(req);
    const caps = {
      node: MAX_SESSIONS_PER_NODE,
      address: config.limits.connectionsPerAddress,
      agent: Math.min(config.limits.connectionsPerAgent, MAX_SESSIONS_PER_NODE),
      newSessionMs: options.newSessionMs ?? DEFAULT_MCP_NEW_SESSION_MS,
    };
    // Only an initialize may end another session: anything else is refused by the transport once admitted.
    const mayEnd = isInitializeRequest(body.parsed);
    const admission = admitSession(registry, caller, address, mayEnd ? caps : { ...caps, newSessionMs: Infinity });
    if (!admission.admitted) throw refusal(admission.cap, admission.retryAfterMs, caps, caller.agent_id, address);
    for (const ended of admission.ended)
      log.info(
        { agent_id: caller.agent_id, workspace: caller.workspace, session: ended.id, used: ended.used },
        'mcp session ended to make room for a new one',
      );
    // Held from the check on: the opening awaits before the session is added, and others may check meanwhile.
    const release = registry.reserve(caller, address);
    let held = true;
    try {
      const session = await openMcpSession(deps, caller, dialects, address, {
        onOpened: (id, opened) => {
          registry.add(id, opened, address);
          release();
          // Revoked while the session opened: the hold refuses, and the session is closed below once its
          // initialize is answered; its later requests are looked up again and told the token is revoked.
          if (token) held = sessionTokens.hold(id, token);
          log.debug({ agent_id: caller.agent_id, workspace: caller.workspace, session: id }, 'mcp session opened');
        },
        onClosed: (id) => {
          registry.remove(id);
          sessionTokens.release(id);
        },
      });
      res.setHeader(MCP_EVENT_CURSOR_HEADER, session.opensAfter);
      await session.transport.handleRequest(req, res, body.parsed);
      // The first request was not initialize: the transport refused it, and there is no session to keep.
      if (session.transport.sessionId === undefined || !held) await session.close();
    } finally {
      release();
    }
  };

  const route: Route = async (req, res) => {
    const query = new URL(req.url ?? '/mcp', 'http://planhub.invalid').searchParams;
    const id = req.headers['mcp-session-id'];
    try {
      if (closed) throw new PlanHubError('UNAVAILABLE', 'This PlanHub node is shutting down; connect to another.');
      // No Origin/Host check here: the router (transport/http-routes.ts) applied the origin policy every door shares
      // before it routed to /mcp. That is the DNS rebinding defence MCP asks for; a second, stricter one would refuse
      // what PLANHUB_ALLOWED_ORIGINS and PLANHUB_ALLOWED_HOSTS allow at the socket door.
      await registry.sweepIfDue();
      if (typeof id === 'string') await existing(req, res, id, query);
      else await opening(req, res, query);
    } catch (err) {
      const error = toPlanHubError(err);
      if (error.code === 'INTERNAL') log.error({ err }, 'mcp request failed');
      else log.info({ code: error.code, message: error.message }, 'mcp request refused');
      refuseHttp(res, clippedShape(error));
    }
  };

  return {
    route,
    async close() {
      closed = true;
      sessionTokens.stop();
      await registry.close();
    },
  };
};
