import type { Caller } from '@planhub/shared';
import { OpenAuthSchema } from '@planhub/shared';
import type { ServerConfig } from '../config.ts';
import { issuesOf } from '../errors/to-error-shape.ts';

/** Turns a handshake's `auth` into the identity the connection acts as, or throws with the reason for connect_error. */
export type Authenticate = (auth: unknown) => Promise<Caller>;

export const openModeAuthenticate: Authenticate = (auth) => {
  const parsed = OpenAuthSchema.safeParse(auth ?? {});
  if (!parsed.success)
    return Promise.reject(
      new Error(
        `Handshake auth must be { workspace?, agent_id, role? } in open mode: ${issuesOf(parsed.error)
          .map((i) => `${i.path || 'auth'}: ${i.message}`)
          .join('; ')}`,
      ),
    );
  return Promise.resolve(parsed.data);
};

export const authenticatorFor = (config: ServerConfig): Authenticate => {
  if (config.secret === undefined) return openModeAuthenticate;
  return () => Promise.reject(new Error('This server requires a token (secret mode is not available yet).'));
};
