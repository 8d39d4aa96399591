import { KeyedCount } from '../limits/keyed-count.ts';
import type { McpSession } from './mcp-session.ts';

const agentKey = (agent: { workspace: string; agent_id: string }) => `${agent.workspace}\u0000${agent.agent_id}`;

interface Entry {
  session: McpSession;
  /** The client address that opened it (transport/client-address.ts), for the per-address cap. */
  address: string;
  /** Requests of the session in progress (its GET event stream is not one: see sweep). */
  active: number;
  idleSince: number;
}

export interface SessionRegistryOptions {
  idleMs: number;
  now?: () => number;
}

/**
 * This node's MCP sessions by id. A session with no request in progress for `idleMs` is closed (its client gets
 * 404 and initializes a new one, as the MCP spec has it), so abandoned sessions do not pile up. An open GET event
 * stream counts as activity only while its client reads it (`EventStreamGuard.keepingUp`, checked at each sweep):
 * held open and unread, it used to keep its session, and what was queued for it, for ever.
 */
export class SessionRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private lastSweep: number;

  constructor(private readonly options: SessionRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.lastSweep = this.now();
    this.sweepEveryMs = Math.max(1000, Math.min(options.idleMs / 2, 60_000));
    this.timer = setInterval(() => void this.sweep(), this.sweepEveryMs);
    this.timer.unref();
  }

  /** Requests also sweep (at most once per interval), so expiry follows the clock even between timer ticks. */
  async sweepIfDue(): Promise<void> {
    if (this.now() - this.lastSweep >= this.sweepEveryMs) await this.sweep();
  }

  add(id: string, session: McpSession, address: string): void {
    this.entries.set(id, { session, address, active: 0, idleSince: this.now() });
  }

  get(id: string): McpSession | undefined {
    return this.entries.get(id)?.session;
  }

  remove(id: string): void {
    this.entries.delete(id);
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

  /** Closes every session idle for longer than idleMs; returns how many. */
  async sweep(): Promise<number> {
    this.lastSweep = this.now();
    const cutoff = this.lastSweep - this.options.idleMs;
    for (const entry of this.entries.values()) if (entry.session.stream.keepingUp()) entry.idleSince = this.lastSweep;
    const idle = [...this.entries.values()].filter((e) => e.active === 0 && e.idleSince <= cutoff);
    await Promise.all(idle.map((e) => e.session.close()));
    return idle.length;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.entries.values()].map((e) => e.session.close()));
    this.entries.clear();
  }
}
