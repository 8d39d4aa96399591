/**
 * Orders strings by their UTF-8 bytes, as the Redis commit script compares them (byte by byte, not with Lua's `<`,
 * which follows Redis's locale): the order in which every store fills a fan-in's received outputs (store/fill.ts),
 * and so the order a delivered `step_unblocked` lists them in.
 */
export const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
