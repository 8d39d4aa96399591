import { mintToken } from '@planhub/server';
import type { Server, Socket } from 'socket.io';
import { describe, expect, it } from 'vitest';
import type { Revocations } from '../../server/src/store/revocations/revocations.ts';
import { enforceTokens } from '../../server/src/transport/token-enforcement.ts';
import { captureLog } from '../security/support/capture-log.ts';

type Middleware = (socket: Socket, next: (err?: Error) => void) => void;

/** The handshake middleware enforceTokens installs, driven without a socket.io server. */
const handshakes = (deps: Omit<Parameters<typeof enforceTokens>[1], 'revocations' | 'maxLifetimeSeconds'>) => {
  let middleware: Middleware | undefined;
  const io = { use: (fn: Middleware) => void (middleware = fn) } as unknown as Server;
  const revocations = {
    isRevoked: () => Promise.reject(new Error('The store is unreachable right now (Redis is down or restarting)')),
    onRevoked: () => () => {},
  } as unknown as Revocations;
  enforceTokens(io, { ...deps, revocations, maxLifetimeSeconds: 86_400 });
  return (token: string) =>
    new Promise<Error | undefined>((resolve) =>
      middleware?.({ handshake: { auth: { token } }, conn: { readyState: 'open' } } as unknown as Socket, resolve),
    );
};

describe('revoked-token lookups that fail while the store is down', () => {
  it('log one warn line per second without a stack, counting the failures left out', async () => {
    const capture = captureLog();
    let now = 1_000_000;
    const handshake = handshakes({ log: capture.log, now: () => now });
    const token = await mintToken(
      'lookup-log-secret-0123456789',
      { workspace: 'ws', agent_id: 'a', role: 'agent' },
      '1h',
    );
    for (let i = 0; i < 50; i++) expect((await handshake(token))?.message).toMatch(/revocation|unavailable|retry/i);
    now += 1000;
    await handshake(token);
    const loud = capture.lines.filter((l) => l.level >= 40);
    expect(loud).toHaveLength(2);
    expect(loud.map((l) => l.level)).toEqual([40, 40]);
    expect(loud[1]).toMatchObject({ left_out: 49 });
    expect(loud[1]?.msg).toMatch(/49 more since the last line/);
    for (const line of loud) expect(line).not.toHaveProperty('err');
    expect(loud[0]?.reason).toMatch(/store is unreachable/);
  });
});
