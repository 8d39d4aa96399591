import type { CallAck, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { DisconnectReasonSchema, PlanHubError } from '@planhub/shared';
import { io, type Socket } from 'socket.io-client';
import { backoffDelay } from './backoff.ts';
import type { CallOptions, ConnectOptions, ConnectionState, StateInfo } from './connect-options.ts';
import { CloseWatch } from './close-watch.ts';
import { clientClosedError, notOpenedError } from './closed-client.ts';
import { emitCall } from './emit-call.ts';
import { CallSlots } from './call-slots.ts';
import { callTerms, withRetries } from './call-retry.ts';
import { attemptAt, boundedArgs } from './call-deadline.ts';
import { withinMs } from './within-ms.ts';
import { EventClient } from './event-client.ts';
import { nodeUrls } from './node-url.ts';
import { callLive } from './live-cursor.ts';
import { unsendable } from './unsendable.ts';
import { attemptFailure, causeOf } from './refusal.ts';

/**
 * The connection: a small state machine over socket.io-client with its own reconnection (so it can rotate
 * between nodes), typed calls that retry safely with a request_id, and in-order, de-duplicated events.
 */
export class PlanHubClientCore extends EventClient {
  state: ConnectionState = 'connecting';
  private socket: Socket | undefined;
  private urlIndex = 0;
  private attempt = 0;
  private everConnected = false;
  /** open() has started dialing: a second open() waits for the same attempts. */
  private opened = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Why the last attempt on each URL failed: what a connect() that gives up reports. */
  private readonly failures = new Map<string, string>();
  /** Why the client closed itself (a final refusal), for whoever waits on it. */
  private closedBy: PlanHubError | undefined;
  /** Aborted by close(), with the error every call still in flight or made later ends with. */
  private readonly closing = new AbortController();
  private readonly closeWatch = new CloseWatch(this.closing.signal);
  /** Calls on the wire, kept under the node's bound per connection (call-slots.ts). */
  private readonly slots = new CallSlots();
  private readonly urls: readonly string[];
  constructor(readonly options: ConnectOptions) {
    super(options.renewalBackoff);
    this.urls = nodeUrls(options.url);
    if (options.onState) this.on('state', options.onState);
  }

  /**
   * Resolves on the first successful connection. Rejects with the node's code when it refuses the credentials, and
   * with UNAVAILABLE (naming each URL tried and why it failed) when no node answers within `connectTimeoutMs`; the
   * client is closed then, so nothing keeps retrying behind the application's back.
   */
  open(): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    if (this.state === 'connected') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(this.closedError());
    const dialing = this.opened;
    this.opened = true;
    return new Promise((resolve, reject) => {
      const settle = (error?: PlanHubError) => {
        clearTimeout(timer);
        offState();
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => {
        const error = new PlanHubError('UNAVAILABLE', this.unreachable(timeoutMs));
        settle(error);
        this.close(error.message);
      }, timeoutMs);
      const offState = this.on('state', (state) => {
        if (state === 'connected') settle();
        // Closed while dialing: by the application (nothing will dial again, so not retryable) or a final refusal.
        else if (state === 'closed') settle(this.closedError());
      });
      if (dialing) return;
      this.setState('connecting', { url: this.urls[0] as string });
      void this.dial();
    });
  }

  private unreachable(timeoutMs: number): string {
    const tried = this.urls.map((url) => `${url} (${this.failures.get(url) ?? 'no answer'})`).join(', ');
    return `Could not connect to PlanHub within ${timeoutMs} ms. Tried: ${tried}. Check that a node runs there.`;
  }

  private setState(state: ConnectionState, info: StateInfo = {}): void {
    this.state = state;
    this.emit('state', state, info);
  }

  private async dial(): Promise<void> {
    const url = this.urls[this.urlIndex % this.urls.length] as string;
    let token: string | undefined;
    try {
      token =
        typeof this.options.token === 'function'
          ? await withinMs(this.options.token(), this.options.tokenTimeoutMs ?? 5000, 'no token within')
          : this.options.token;
    } catch (err) {
      // A failing token source (its own server down) is retried like a network failure; thrown from here it would
      // be an unhandled rejection in the application, and the client would never dial again.
      const reason = `token: ${err instanceof Error ? err.message : String(err)}`;
      this.failures.set(url, reason);
      this.scheduleReconnect(reason);
      return;
    }
    // close() may have come while the token was being fetched (or before a reconnect timer fired).
    if (this.state === 'closed') return;
    const auth =
      token !== undefined
        ? { token }
        : {
            workspace: this.options.workspace ?? 'default',
            agent_id: this.options.agentId,
            role: this.options.role ?? 'agent',
          };
    const socket = io(url, { transports: ['websocket'], reconnection: false, auth, forceNew: true, timeout: 5000 });
    this.socket = socket;
    if (this.state !== 'connecting') this.setState('connecting', { url });
    socket.on('connect', () => {
      this.attempt = 0;
      this.subscriptions.newConnection();
      const again = this.everConnected;
      this.everConnected = true;
      this.setState('connected', { url });
      if (again) {
        this.resubscribe();
        this.emit('reconnected');
      }
    });
    socket.on('event', (event: unknown) => this.receive(event));
    socket.on('connect_error', (err: Error & { data?: unknown; description?: unknown }) => {
      // socket.active is false when the node itself refused the handshake; otherwise nothing answered at all.
      const failure = attemptFailure(err, !socket.active);
      this.failures.set(url, `${failure.code}: ${failure.message}${causeOf(err)}`);
      if (failure.final) {
        this.closedBy = new PlanHubError(failure.code, failure.message, failure.details);
        this.close(failure.message);
        return;
      }
      this.scheduleReconnect(failure.message, failure.details?.retry_after_ms);
    });
    // Sent by the node right before it closes the connection itself (a slow consumer), so it precedes 'disconnect'.
    let told: PlanHubError | undefined;
    socket.on('disconnect_reason', (raw: unknown) => {
      const parsed = DisconnectReasonSchema.safeParse(raw);
      if (!parsed.success) return;
      const { code, message, ...details } = parsed.data;
      told = new PlanHubError(code, message, details);
    });
    socket.on('disconnect', (reason) => {
      if (this.state === 'closed') return;
      this.scheduleReconnect(told?.message ?? reason, 0, told);
      // Not the application's call, but its doing: a listener that is too slow hears it here (the reconnect and the
      // resume go on by themselves).
      if (told) this.emit('error', told);
    });
  }

  private scheduleReconnect(reason: string, notBeforeMs = 0, error?: PlanHubError): void {
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.socket = undefined;
    if (this.state === 'closed' || this.reconnectTimer) return;
    this.setState('disconnected', { reason, ...(error ? { error } : {}) });
    if (this.subscriptionInfo.state === 'live') this.reportSubscriptions({ state: 'renewing', attempt: 0 });
    this.urlIndex += 1;
    const delay = Math.max(
      notBeforeMs,
      backoffDelay(this.attempt++, this.options.backoff ?? { baseMs: 100, maxMs: 5000 }),
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.dial();
    }, delay);
  }

  private waitConnected(deadline: number): Promise<Socket> {
    const socket = this.socket;
    if (this.state === 'connected' && socket) return Promise.resolve(socket);
    if (this.state === 'closed') return Promise.reject(this.closedError());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => {
          off();
          reject(new PlanHubError('DEADLINE_EXCEEDED', 'not connected to any PlanHub node in time'));
        },
        Math.max(0, deadline - Date.now()),
      );
      const off = this.on('state', (state) => {
        if (state === 'connected' && this.socket) {
          clearTimeout(timer);
          off();
          resolve(this.socket);
        } else if (state === 'closed') {
          clearTimeout(timer);
          off();
          reject(this.closedError());
        }
      });
    });
  }

  /**
   * `payload` is built once connected: what a call sends can depend on the connection it goes out on. `namedMs` is
   * what a timeout says, `at` when the attempt stops waiting (none: it waits for a person).
   */
  private async callOnce(payload: () => object, namedMs: number | undefined, at: number | undefined): Promise<CallAck> {
    const deadline = at ?? Number.MAX_SAFE_INTEGER;
    // The place first: the connection it then waits for is the one the call goes out on.
    const release = await this.slots.take(
      at,
      () => new PlanHubError('DEADLINE_EXCEEDED', `no answer within ${namedMs} ms (queued behind other calls)`),
    );
    let socket: Socket;
    let body: object;
    try {
      socket = await this.waitConnected(Math.min(deadline, Date.now() + (this.options.timeoutMs ?? 15_000)));
      body = payload();
    } catch (err) {
      release();
      throw err;
    }
    // Freed when the node no longer counts the call (emit-call.ts), which may be after the caller gave up on it.
    return emitCall(socket, body, namedMs, deadline, this.closeWatch, release);
  }

  /**
   * One tool call. Mutating calls carry a request_id, so retrying after a lost connection or a timeout applies
   * the change once; the typed error carries `code` and `retryable`, and a retryable one its `requestId`. A
   * `timeoutMs` of the caller's bounds the whole call, retries and the node's waits included (call-deadline.ts).
   */
  async call<N extends ToolName>(tool: N, args: ToolArgs<N>, options: CallOptions = {}): Promise<ToolResult<N>> {
    // The caller's input, refused before the call takes a place on the wire: one that threw inside socket.emit kept
    // its place for good, and 96 of them left every later call waiting.
    const refusal = unsendable(tool, args);
    if (refusal) throw refusal;
    if (!this.opened && this.state !== 'closed') throw notOpenedError(tool);
    const started = Date.now();
    const send = <M extends ToolName>(name: M, sent: ToolArgs<M>, live?: string) =>
      this.send(name, sent, options, started, live);
    return callLive(tool, args, send, this.lastEventId !== undefined);
  }

  /** One tool call, retried: `started` is when the application made it, `live` where its '$' stands. */
  private send<N extends ToolName>(tool: N, args: ToolArgs<N>, options: CallOptions, started: number, live?: string) {
    const terms = callTerms(tool, args, options, this.options);
    const { requestId } = terms;
    const sent = boundedArgs(tool, args, options);
    return withRetries(
      async () => {
        const attempt = attemptAt(tool, sent, terms, started);
        const ack = await this.callOnce(
          // Built when sent, after any wait for a connection: a long-poll's wait is what is left of it by then.
          () => ({
            tool,
            args:
              tool === 'subscribeToTasks'
                ? this.subscriptions.resuming(args, this.lastEventId, live)
                : attemptAt(tool, sent, terms, started).args,
            ...(requestId ? { request_id: requestId } : {}),
          }),
          attempt.namedMs,
          attempt.at,
        );
        if (!ack.ok) throw new PlanHubError(ack.error.code, ack.error.message, ack.error.details);
        this.observe(tool, args, ack.result);
        return this.readResult(tool, ack.result) as ToolResult<N>;
      },
      terms,
      this.options.backoff ?? { baseMs: 100, maxMs: 2000 },
      () => this.state === 'closed',
      started,
    );
  }

  /** What a call on a closed client ends with: the node's refusal that closed it, or a non-retryable "closed". */
  private closedError(): PlanHubError {
    return this.closing.signal.aborted
      ? (this.closing.signal.reason as PlanHubError)
      : (this.closedBy ?? clientClosedError());
  }

  /** Ends every call still waiting (a startPlan waiting for a person included) with the reason, then the connection. */
  close(reason = 'closed by the application'): void {
    if (this.state === 'closed') return;
    this.closing.abort(this.closedBy ?? clientClosedError(reason));
    this.renewal?.stop();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.socket = undefined;
    this.setState('closed', { reason, ...(this.closedBy ? { error: this.closedBy } : {}) });
  }
}
