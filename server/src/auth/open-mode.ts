const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Open mode trusts whatever identity a client claims, so it may only listen where no one else can connect (like
 * Redis' protected mode). Returns why a configuration must not listen, or undefined when it may.
 */
export const openModeRefusal = (config: { host: string; secret?: string | undefined }): string | undefined =>
  config.secret === undefined && !LOOPBACK.has(config.host)
    ? `Refusing to listen on ${config.host} in open mode: without a secret anyone could act as any agent. ` +
      'Set PLANHUB_SECRET (16+ characters) to require signed tokens, or bind to 127.0.0.1.'
    : undefined;
