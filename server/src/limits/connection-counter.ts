export type { ConnectionCounter } from '../store/limits/limit-backend.ts';
export { createMemoryConnectionCounter } from '../store/limits/memory-limits.ts';
