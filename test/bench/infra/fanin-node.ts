import type { ServerBuild } from '../config.ts';
import { planhubEntry } from './planhub-entry.ts';
import { startNodeServer, type NodeServer } from './processes.ts';

/** Key prefix of the fan-in node: its workspaces stay apart from the other scenarios' on the same Redis. */
export const FANIN_PREFIX = 'bench-fanin';

/**
 * Limits of the fan-in node, raised for the bench: the call budget (200 calls/s per agent by default) would cap a
 * subagent completing its steps at 200/s by policy; a subagent's plan (and the parent's) holds one step per flow,
 * and each of a subagent's steps has one parent step waiting on it (waitersPerPlan, 200 by default, refused the
 * setup of F = 1,000).
 */
export const faninLimits = (maxFlows: number) => ({
  PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
  PLANHUB_LIMIT_STEPS_PER_PLAN: String(Math.max(200, maxFlows + 1)),
  PLANHUB_LIMIT_WAITERS_PER_PLAN: String(Math.max(200, maxFlows + 1)),
});

/** One PlanHub node on the bench's Redis for the fan-in scenario (the issue measured it on one node). */
export const startFaninNode = (redisUrl: string, maxFlows: number, server: ServerBuild): Promise<NodeServer> =>
  startNodeServer('planhub-fanin', planhubEntry(server), {
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: FANIN_PREFIX,
    LOG_LEVEL: 'warn',
    PLANHUB_APPROVAL_POLICY: 'auto',
    PLANHUB_SECRET: '',
    ...faninLimits(maxFlows),
  });
