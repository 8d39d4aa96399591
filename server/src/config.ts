import { z } from 'zod';

const int = (def: number) => z.coerce.number().int().positive().default(def);

/** Count limits (DESIGN.md §8); string lengths are fixed by the schemas in @planhub/shared. */
export const LimitsSchema = z.object({
  stepsPerPlan: int(200),
  plansPerAgent: int(50),
  todosPerList: int(200),
  tasksPerWorkspace: int(1000),
  subscriptionsPerAgent: int(50),
  connectionsPerAgent: int(20),
  outputBytes: int(64 * 1024),
  outputDepth: int(16),
  callsPerSecond: int(200),
  /** socket.io maxHttpBufferSize: the largest frame a client may send. */
  payloadBytes: int(1024 * 1024),
});

export const ServerConfigSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(4000),
  host: z.string().default('127.0.0.1'),
  redisUrl: z.string().url().optional(),
  /** Redis key prefix, so several deployments (or tests) can share one Redis. */
  redisPrefix: z.string().default('ph'),
  secret: z.string().min(16).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  approvalPolicy: z.enum(['owner-or-user', 'user', 'auto']).default('owner-or-user'),
  /** Events kept per workspace log. */
  eventRetention: int(10_000),
  /** How long a request_id's first answer is remembered. */
  requestTtlMs: int(10 * 60 * 1000),
  limits: LimitsSchema.default(LimitsSchema.parse({})),
});
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

export const parseConfig = (input: ServerConfigInput = {}): ServerConfig => ServerConfigSchema.parse(input);

/** The only reader of the environment (main.ts calls it). */
export const configFromEnv = (env: NodeJS.ProcessEnv): ServerConfig =>
  parseConfig({
    port: env.PORT as unknown as number | undefined,
    host: env.HOST,
    redisUrl: env.REDIS_URL || undefined,
    secret: env.PLANHUB_SECRET || undefined,
    logLevel: (env.LOG_LEVEL as ServerConfig['logLevel'] | undefined) ?? undefined,
    approvalPolicy: (env.PLANHUB_APPROVAL_POLICY as ServerConfig['approvalPolicy'] | undefined) ?? undefined,
  });
