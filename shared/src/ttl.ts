const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * The longest token a node accepts (exp - iat) unless PLANHUB_TOKEN_MAX_LIFETIME says otherwise, in seconds: 30 days.
 * Here because `planhub token` mints offline and cannot ask the node, so it warns against the default.
 */
export const DEFAULT_TOKEN_MAX_LIFETIME_S = 30 * 86_400;

/**
 * A token lifetime such as "90s", "15m", "1h" or "7d" (or plain seconds) in seconds. Shared by the server's minting
 * helper and the `planhub token` CLI, so both read a TTL the same way.
 */
export const parseTtl = (ttl: string | number): number => {
  if (typeof ttl === 'number') {
    if (!Number.isInteger(ttl) || ttl <= 0)
      throw new Error(`TTL must be a positive whole number of seconds, not ${ttl}.`);
    return ttl;
  }
  const match = /^(\d{1,9})\s*([smhd]?)$/.exec(ttl.trim());
  if (!match) throw new Error(`TTL "${ttl.slice(0, 40)}" is not understood; use e.g. 90s, 15m, 1h or 7d.`);
  const seconds = Number(match[1]) * (UNITS[match[2] || 's'] ?? 1);
  if (seconds <= 0) throw new Error('TTL must be longer than zero.');
  return seconds;
};
