import type { CallAck, ConnectRefusal, Role, TaskEvent, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { PlanHubError, TOOLS, retryAfterOf, takesRequestId } from '@planhub/shared';
import { io, type Socket } from 'socket.io-client';
import { refusalText } from './refusal.ts';

export interface Identity {
  workspace: string;
  agentId: string;
  role: Role;
  /** Secret mode: the signed token carries workspace, agent and role. */
  token?: string;
}

const ROLES: readonly Role[] = ['agent', 'user', 'dashboard'];
const STORED_ID = 'planhub.dashboard.agent';

/** A stable per-browser name for a read-only dashboard, so reconnects and reloads reuse its subscription slot. */
const browserAgentId = (): string => {
  try {
    const known = localStorage.getItem(STORED_ID);
    if (known) return known;
    const made = `dashboard-${Math.random().toString(36).slice(2, 10)}`;
    localStorage.setItem(STORED_ID, made);
    return made;
  } catch {
    return `dashboard-${Math.random().toString(36).slice(2, 10)}`;
  }
};

/**
 * Where a secret-mode page keeps its token: sessionStorage, so it lives as long as the tab (a reload, a tab the
 * browser discarded and brings back) and no other tab or later session reads it.
 */
const STORED_TOKEN = 'planhub.dashboard.token';

/** The tab's sessionStorage, or none where the browser refuses it (storage disabled, a sandboxed frame). */
const tabStorage = (): Storage | undefined => {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
};

const storedToken = (storage: Storage | undefined): string | undefined => {
  try {
    return storage?.getItem(STORED_TOKEN) ?? undefined;
  } catch {
    return undefined;
  }
};

/** Forgets the tab's token, once the server refused it: a reload should not offer it again. */
export const forgetToken = (storage: Storage | undefined = tabStorage()): void => {
  try {
    storage?.removeItem(STORED_TOKEN);
  } catch {
    // Storage disabled: there is nothing to forget.
  }
};

/**
 * Who this page connects as. Open mode: ?workspace=&agent=&role= (default: a read-only dashboard). Secret mode:
 * #token=, removed from the address bar at once so it does not linger in history, and kept in the tab's
 * sessionStorage so a reload connects again. ?token= is not taken: a query reaches the server and whatever logs
 * requests on the way (a proxy's access log); it is still removed from the address bar.
 */
export const identityFromLocation = (
  location: Location,
  history: History,
  storage: Storage | undefined = tabStorage(),
): Identity => {
  const query = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const given = hash.get('token') ?? undefined;
  if (given !== undefined || query.has('token')) {
    query.delete('token');
    const search = query.toString();
    const route = given === undefined ? location.hash : '';
    history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}${route}`);
  }
  if (given) {
    try {
      storage?.setItem(STORED_TOKEN, given);
    } catch {
      // Storage disabled (a strict privacy mode): this load works, a reload needs the link again.
    }
  }
  const token = given || storedToken(storage);
  const claims = token ? claimsOf(token) : {};
  const role = (claims.role ?? query.get('role')) as Role | null;
  return {
    workspace: claims.workspace ?? (query.get('workspace') || 'default'),
    agentId: claims.agent_id ?? (query.get('agent') || browserAgentId()),
    role: role !== null && ROLES.includes(role) ? role : 'dashboard',
    ...(token ? { token } : {}),
  };
};

/** The token's claims, read (not verified: the server does that) only to label the page. */
const claimsOf = (token: string): { workspace?: string; agent_id?: string; role?: string } => {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/')) || '{}';
    const claims = JSON.parse(json) as Record<string, unknown>;
    const pick = (k: string) => (typeof claims[k] === 'string' ? { [k]: claims[k] } : {});
    return { ...pick('workspace'), ...pick('agent_id'), ...pick('role') };
  } catch {
    return {};
  }
};

/** Handshake refusals worth another try (the rest, UNAUTHENTICATED and PERMISSION_DENIED, are final). */
const RETRYABLE_REFUSALS: ReadonlySet<string> = new Set(['RESOURCE_EXHAUSTED', 'UNAVAILABLE']);
/** Waits between handshakes refused in a row, growing, with some spread so a crowd does not come back at once. */
const REFUSED_BACKOFF_MS = [1000, 2000, 5000, 10_000].map((ms) => ms * (0.75 + Math.random() / 2));

export type ConnectionStatus = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface Connection {
  call<N extends ToolName>(tool: N, args: ToolArgs<N>): Promise<ToolResult<N>>;
  close(): void;
}

/** socket.io to the node that served the page; socket.io's own reconnection brings it back after a drop. */
export const openConnection = (
  identity: Identity,
  handlers: {
    onStatus: (status: ConnectionStatus, detail?: string) => void;
    onConnected: () => void;
    onEvent: (event: TaskEvent) => void;
  },
): Connection => {
  const auth = identity.token
    ? { token: identity.token }
    : { workspace: identity.workspace, agent_id: identity.agentId, role: identity.role };
  const socket: Socket = io({ transports: ['websocket'], auth, reconnectionDelayMax: 5000 });
  let closed = false;
  let refusedInARow = 0;
  handlers.onStatus('connecting');
  socket.on('connect', () => {
    refusedInARow = 0;
    handlers.onStatus('live');
    handlers.onConnected();
  });
  socket.on('disconnect', (reason) => {
    handlers.onStatus('reconnecting', reason);
    // A node that shuts down disconnects its clients on purpose; socket.io leaves those to the application, and the
    // load balancer in front of the nodes sends the new connection to one that is still up.
    if (reason === 'io server disconnect') setTimeout(() => socket.connect(), 250 + Math.random() * 750);
  });
  socket.on('connect_error', (err) => {
    // A refusal by the handshake check ends socket.io's own retries. A bad token or name is final; a full node or
    // agent (RESOURCE_EXHAUSTED, say after a node shut down and everyone moved) or one not ready (UNAVAILABLE) is
    // not: the page tries again, not before the refusal's retry_after_ms, rather than stay "refused" for good.
    const refusal = (err as { data?: Partial<ConnectRefusal> }).data;
    if (!socket.active && !closed && RETRYABLE_REFUSALS.has(String(refusal?.code))) {
      const asked = retryAfterOf(refusal);
      const backoff = REFUSED_BACKOFF_MS[Math.min(refusedInARow, REFUSED_BACKOFF_MS.length - 1)]!;
      refusedInARow += 1;
      setTimeout(
        () => {
          if (!closed && !socket.active) socket.connect();
        },
        Math.max(asked, backoff),
      );
      handlers.onStatus('reconnecting', err.message);
      return;
    }
    if (socket.active) return handlers.onStatus('reconnecting', err.message);
    // A refused token would be refused again at the next reload: forget it, so that reload shows plainly that the
    // page needs its link again instead of trying the dead token first.
    if (refusal?.code === 'UNAUTHENTICATED' && identity.token) forgetToken();
    handlers.onStatus('refused', refusalText(refusal, err.message, identity.token !== undefined));
  });
  // Taken as the typed union unchecked, like every answer: the page has no zod (see bundle.ts) and renders what the
  // node that served it sends. Every view reads a payload only in a case of its event type, so a type newer than the
  // page (a newer node behind the same balancer) reaches their defaults.
  socket.on('event', (event: TaskEvent) => handlers.onEvent(event));
  return {
    async call(tool, args) {
      // Decisions carry a request_id, so a click retried after a dropped connection applies once.
      const requestId = !takesRequestId(TOOLS[tool])
        ? {}
        : { request_id: `${Date.now()}-${Math.random().toString(36).slice(2)}` };
      const ack = (await socket.timeout(15_000).emitWithAck('call', { tool, args, ...requestId })) as CallAck;
      if (!ack.ok) throw new PlanHubError(ack.error.code, ack.error.message, ack.error.details);
      return ack.result as ToolResult<typeof tool>;
    },
    close: () => {
      closed = true;
      socket.close();
    },
  };
};
