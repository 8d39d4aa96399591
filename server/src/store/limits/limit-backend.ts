import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** Live connections per agent; `acquire` admits one unless the agent already holds `max`. */
export interface ConnectionCounter {
  acquire(key: string, connectionId: string, max: number): Promise<{ admitted: boolean; live: number }>;
  release(key: string, connectionId: string): Promise<void>;
  close(): void;
}

export interface RateLimitOptions {
  points: number;
  /** Window length in seconds. */
  duration: number;
}

export interface ConnectionLeaseOptions {
  log: Logger;
  /** A node that dies stops renewing; its connections stop counting after this long. Default 30 s. */
  leaseMs?: number;
  /** How long a handshake waits for the store's first connection (only at startup). Default 1 s. */
  readyWaitMs?: number;
}

/**
 * Where the limits keep their shared counts: the store's own backend (one node's memory, or the deployment's Redis
 * under its key prefix), so nothing outside the store touches a Redis client.
 */
export interface LimitBackend {
  rateLimiter(options: RateLimitOptions): RateLimiterAbstract;
  connectionCounter(options: ConnectionLeaseOptions): ConnectionCounter;
}
