/**
 * A plan_exit plan's id in upstream's form, `plan_<YYYY-MM-DD>_<random>`: hosts tuned on Triggerfish recognise plan
 * ids by the `plan_` prefix. The random part is PlanHub's usual 8-character id rather than upstream's 6 hex digits,
 * so ids stay as unlikely to collide as every other plan's; no `:` appears, so dependency graph nodes stay unambiguous.
 */
export const planModeId = (now: string, random: string): string => `plan_${now.slice(0, 10)}_${random}`;
