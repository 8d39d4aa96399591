import { MAX_EVENT_BYTES } from '@planhub/shared';
import { z } from 'zod';
import { ConfigError } from './config-error.ts';

/**
 * A whole number as an operator writes one: digits only, blanks around allowed. Coercing with Number() also took
 * " " as 0 (PORT=" " listened on a random port), "1e4" as 10000 and "0x50" as 80.
 */
export const wholeNumber = (checked: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), checked.int());

/** A positive whole-number setting with its default. */
export const int = (def: number) => wholeNumber(z.number().positive()).default(def);

/**
 * Limits (docs/security.md), each refused with a clear error. String lengths and array sizes of arguments are fixed by the
 * schemas in @planhub/shared (limits.ts) and answer INVALID_ARGUMENT; these are the configurable ones, and answer
 * RESOURCE_EXHAUSTED.
 */
export const LimitsSchema = z.object({
  /** Steps in one plan (createPlan, addStep, addDependentStep, 002/004 plans). */
  stepsPerPlan: int(200),
  /** Unfinished plans one agent may hold at a time. */
  plansPerAgent: int(50),
  /** Items in one todo list (001 `todo`, 002 `todo_write`). */
  todosPerList: int(200),
  /** Live tasks (003) in one workspace. */
  tasksPerWorkspace: int(1000),
  /** Event subscriptions one agent may hold (subscribeToTasks). */
  subscriptionsPerAgent: int(50),
  /** Simultaneous connections of one agent_id in a workspace (across nodes on the Redis store). */
  connectionsPerAgent: int(20),
  /** JSON size of one free-form object a call stores (completeStepWithOutput's output, task metadata). */
  outputBytes: int(64 * 1024),
  /** Nesting depth of such an object. */
  outputDepth: int(16),
  /** Nesting depth of any call's arguments, checked before validation so nothing deeper is ever walked. */
  argsDepth: int(32),
  /** Calls per second per agent, counted across nodes on the Redis store. */
  callsPerSecond: int(200),
  /** The rate window: an agent may make callsPerSecond × rateWindowSeconds calls per window. */
  rateWindowSeconds: int(1),
  /** Keys plus array elements in one call frame, counted on the raw text before it is parsed. */
  frameValues: int(20_000),
  /** Call budget of one client address per second, in cost units (1 per call plus 1 per 16 KiB of frame), per node. */
  callsPerAddressPerSecond: int(20_000),
  /** Simultaneous connections from one client address to one node, whatever agent ids they claim. */
  connectionsPerAddress: int(1000),
  /** Simultaneous connections to one node. */
  connectionsPerNode: int(10_000),
  /** socket.io maxHttpBufferSize: the largest frame a client may send (a bigger one closes that connection). */
  payloadBytes: int(1024 * 1024),
  /** Steps of other plans waiting on one plan's steps at a time (addDependentStep), counted across nodes. */
  waitersPerPlan: int(200),
  /** Steps waiting on steps that do not exist yet (an agent not spawned yet), per workspace, counted across nodes. */
  pendingWaiters: int(1000),
  /**
   * Steps one addDependentStep may reach through the open dependencies of the steps it would wait on (those
   * included): its cycle check reads every one of them, a level of the graph per two store round trips.
   */
  reachableSteps: int(1000),
  /** Stored bytes of one workspace (documents as JSON plus the events kept), checked inside each commit. */
  workspaceBytes: int(64 * 1024 * 1024),
  /**
   * Answers remembered for request_id retries per agent and workspace (for requestTtlMs); past it the oldest is
   * forgotten, so a flood of distinct request_ids cannot grow the store. At the default call rate that is still
   * about 50 s of retries at full speed, and the whole TTL at any normal pace.
   */
  requestsPerAgent: int(10_000),
  /**
   * Bytes queued for one connection (events it has not read yet) before the node cuts it as a slow consumer; it
   * reconnects and resumes from its cursor. At least two of the largest events, so one big event never cuts a reader.
   */
  outboundBytes: wholeNumber(z.number().min(2 * MAX_EVENT_BYTES)).default(8 * 1024 * 1024),
  /**
   * Bytes queued for all the connections of one client address on one node: past it, the ones holding the most are
   * cut as slow consumers. Without it an address bounded only by connectionsPerAddress × outboundBytes (about 8 GiB).
   */
  outboundBytesPerAddress: wholeNumber(z.number().min(2 * MAX_EVENT_BYTES)).default(256 * 1024 * 1024),
});
export type Limits = z.infer<typeof LimitsSchema>;

const LIMIT_PREFIX = 'PLANHUB_LIMIT_';
/** stepsPerPlan ↔ PLANHUB_LIMIT_STEPS_PER_PLAN, and so on for every limit. */
export const limitEnvName = (key: string) => LIMIT_PREFIX + key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** PLANHUB_LIMIT_STEPS_PER_PLAN and the rest, one per limit. */
export const limitEnvNames = (): string[] => Object.keys(LimitsSchema.shape).map(limitEnvName);

/** Limits set in the environment; a misspelt PLANHUB_LIMIT_* is an error rather than a silently ignored setting. */
export const limitsFromEnv = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const names = new Map(Object.keys(LimitsSchema.shape).map((key) => [limitEnvName(key), key]));
  const limits: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(LIMIT_PREFIX) || !value) continue;
    const key = names.get(name);
    if (key === undefined)
      throw new ConfigError(`Unknown limit ${name}; the limits are ${[...names.keys()].join(', ')}.`);
    limits[key] = value;
  }
  return limits;
};
