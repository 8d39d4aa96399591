import { KeyedCount } from '../limits/keyed-count.ts';
import type { McpSession } from './mcp-session.ts';

export const agentKey = (agent: { workspace: string; agent_id: string }) => `${agent.workspace}\u0000${agent.agent_id}`;

interface Entry {
  id: string;
  session: McpSession;
  /** The client address that opened it (transport/client-address.ts), for the per-address cap. */
  address: string;
  /** Requests of the session in progress (its GET event stream is not one: see sweep). */
  active: number;
  openedAt: number;
  idleSince: number;
  /** Whether it made a request after its initialize (the `notifications/initialized` that completes it is none). */
  used: boolean;
}

/** What the caps (session-admission.ts) weigh of a session. */
export interface SessionState {
  readonly id: string;
  readonly agent: string;
  readonly address: string;
  /** A request in progress or an open GET stream: its host is there, and it is never ended for another's sake. */
  readonly busy: boolean;
  readonly used: boolean;
  readonly openedAt: number;
  readonly idleSince: number;
  /** When it expires if nothing happens on it (meaningless while busy). */
  readonly expiresAt: number;
}

export interface SessionRegistryOptions {
  idleMs: number;
  /** The idle time of a session that never made a request after its initialize. */
  unusedMs: number;
  now?: () => number;
}

/**
 * This node's MCP sessions by id. A session with no request in progress for `idleMs` is closed (its client gets
 * 404 and initializes a new one, as the MCP spec has it), so abandoned sessions do not pile up; one that never made
 * a request after its initialize is closed after the much shorter `unusedMs`, since a host that is there lists its
 * tools or opens its event stream at once, and initializes thrown away held their caps for 30 minutes. An open GET
 * event stream counts as activity only while its client reads it (`EventStreamGuard.keepingUp`, checked at each
 * sweep): held open and unread, it used to keep its session, and what was queued for it, for ever.
 */
export class SessionRegistry {
  private readonly entries = new Map<string, Entry>();
  readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private lastSweep: number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
    const shortest = Math.min(options.idleMs, options.unusedMs);
    this.sweepEveryMs = Math.max(1000, Math.min(shortest / 2, 60_000));
    this.timer = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.timer.unref();
  }

  /** Requests also sweep (at most once per interval), so expiry follows the clock even between timer ticks. */
  async sweepIfDue(): Promise<void> {
    if (this.now() - this.lastSweep >= this.sweepEveryMs) await this.sweep();
  }

  add(id: string, session: McpSession, address: string): void {
    const now = this.now();
    this.entries.set(id, { id, session, address, active: 0, openedAt: now, idleSince: now, used: false });
  }

  get(id: string): McpSession | undefined {
    return this.entries.get(id)?.session;
  }

  remove(id: string): void {
    this.entries.delete(id);
  }

  /** The session made a request of its own: from now on it lives the full idle time. */
  markUsed(id: string): void {
    const entry = this.entries.get(id);
    if (entry) entry.used = true;
  }

  /**
   * Ends session `id`. It leaves the registry at once, so the slot it held is free before the close completes (the
   * caps are checked and a place reserved with no await between).
   */
  end(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.resolve();
    this.entries.delete(id);
    return entry.session.close();
  }

  /** Sessions being opened, per agent: counted with the open ones, so openings at once cannot pass the limit. */
  private readonly opening = new KeyedCount();
  /** The same, per client address. */
  private readonly openingFrom = new KeyedCount();

  /**
   * Holds a place for a session of `agent` from `address` while it opens (the checks before it and the session's add
   * come an await apart); the answer gives it back once the session is added or failed to open. Idempotent.
   */
  reserve(agent: { workspace: string; agent_id: string }, address: string): () => void {
    const agentHeld = this.opening.take(agentKey(agent));
    const addressHeld = this.openingFrom.take(address);
    return () => {
      agentHeld();
      addressHeld();
    };
  }

  countForAddress(address: string): number {
    let count = this.openingFrom.held(address);
    for (const entry of this.entries.values()) if (entry.address === address) count += 1;
    return count;
  }

  countFor(agent: { workspace: string; agent_id: string }): number {
    let count = this.opening.held(agentKey(agent));
    for (const { session } of this.entries.values())
      if (session.caller.workspace === agent.workspace && session.caller.agent_id === agent.agent_id) count += 1;
    return count;
  }

  get size(): number {
    return this.entries.size + this.opening.total;
  }

  /** The open sessions, oldest first, as the caps weigh them. */
  *states(): Generator<SessionState> {
    for (const entry of this.entries.values()) {
      const { caller } = entry.session;
      yield {
        id: entry.id,
        agent: agentKey(caller),
        address: entry.address,
        busy: entry.active > 0 || entry.session.stream.open,
        used: entry.used,
        openedAt: entry.openedAt,
        idleSince: entry.idleSince,
        expiresAt: entry.idleSince + this.lifetimeOf(entry),
      };
    }
  }

  /** Runs one request of session `id`; the session cannot expire while it runs. */
  async track<T>(id: string, run: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(id);
    if (entry) entry.active += 1;
    try {
      return await run();
    } finally {
      if (entry) {
        entry.active -= 1;
        entry.idleSince = this.now();
      }
    }
  }

  private lifetimeOf(entry: Entry): number {
    return entry.used ? this.options.idleMs : Math.min(this.options.unusedMs, this.options.idleMs);
  }

  /**
   * Ends every session past its idle time; the answer (how many) settles once they closed. They are out of the
   * registry as soon as this returns, so a cap checked right after counts them no more.
   */
  sweep(): Promise<number> {
    this.lastSweep = this.now();
    for (const entry of this.entries.values()) if (entry.session.stream.keepingUp()) entry.idleSince = this.lastSweep;
    const idle = [...this.entries.values()].filter(
      (e) => e.active === 0 && e.idleSince + this.lifetimeOf(e) <= this.lastSweep,
    );
    return Promise.all(idle.map((e) => this.end(e.id))).then(() => idle.length);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.entries.values()].map((e) => e.session.close()));
    this.entries.clear();
  }
}
