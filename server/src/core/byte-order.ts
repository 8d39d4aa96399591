/**
 * Orders strings by their UTF-8 bytes, as Lua compares strings: the order in which both stores fill a fan-in's
 * received outputs (store/fill.ts), and so the order a delivered `step_unblocked` lists them in.
 */
export const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
