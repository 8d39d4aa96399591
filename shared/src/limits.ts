/**
 * Fixed length limits enforced by the schemas. They bound what one call can write, so a 1 MB string is refused at
 * the door with INVALID_ARGUMENT. Count limits (steps per plan, plans per agent, …) are server config.
 */
export const MAX_ID = 128;
export const MAX_TITLE = 500;
export const MAX_DESCRIPTION = 4_000;
export const MAX_RESULT = 20_000;
export const MAX_ARRAY = 200;
