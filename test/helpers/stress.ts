/**
 * Race and fuzz rounds scale with PLANHUB_STRESS (default 1, what CI runs); e.g. PLANHUB_STRESS=20 for a long
 * local soak. Never a timing threshold: only how many times a race is tried.
 */
export const STRESS = Math.max(1, Number(process.env.PLANHUB_STRESS ?? '1') || 1);
export const rounds = (base: number): number => Math.ceil(base * STRESS);
