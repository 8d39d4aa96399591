/**
 * What a node takes as its PLANHUB_SECRET (and metrics token), shared so that `planhub token` refuses to mint with a
 * secret no node would start with: at least this many characters…
 */
export const SECRET_MIN_LENGTH = 16;

/** …of which at least this many different ones ("aaaaaaaaaaaaaaaa" is 16 characters and no secret at all). */
export const SECRET_VARIETY = 8;

/** How many different characters (code points) a secret uses. */
export const secretVariety = (secret: string): number => new Set(secret).size;
