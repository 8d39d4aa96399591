export { createServer } from './create-server.ts';
export type { PlanHubServer, ServerDeps } from './create-server.ts';
export { parseConfig, configFromEnv } from './config.ts';
export type { ServerConfig, ServerConfigInput } from './config.ts';
export { createMemoryStore } from './store/memory-store.ts';
export type { Store } from './store/store.ts';
export { createLogger } from './logger.ts';
export { mintToken, verifyToken, TokenError } from './auth/tokens.ts';
