import { parseArgs } from 'node:util';

/** Options every command shares; the environment supplies defaults so scripts need not repeat them. */
export const parseCli = (argv: readonly string[], env: NodeJS.ProcessEnv) => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: 'string', default: env.PLANHUB_URL ?? 'http://127.0.0.1:4000' },
      workspace: { type: 'string', short: 'w', default: env.PLANHUB_WORKSPACE ?? 'default' },
      agent: { type: 'string', short: 'a', ...(env.PLANHUB_AGENT ? { default: env.PLANHUB_AGENT } : {}) },
      plan: { type: 'string' },
      token: { type: 'string', ...(env.PLANHUB_TOKEN ? { default: env.PLANHUB_TOKEN } : {}) },
      role: { type: 'string' },
      ttl: { type: 'string' },
      secret: { type: 'string' },
      follow: { type: 'boolean', short: 'f', default: false },
      type: { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  return { command: positionals[0], rest: positionals.slice(1), ...values };
};
export type CliOptions = ReturnType<typeof parseCli>;
