/**
 * The bystander's fixed arrival rate: one polling agent, fast enough that every frame the node works on delays some
 * call that was due meanwhile (a call every 2 ms against frames 143 ms apart).
 */
export const BYSTANDER_RATE = 500;
