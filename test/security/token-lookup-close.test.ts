import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mintToken } from '@planhub/server';
import { Redis } from 'ioredis';
import pino from 'pino';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenTerms } from '../../server/src/auth/tokens.ts';
import { createRedisRevocations, type Revocations } from '../../server/src/store/revocations/revocations.ts';
import { enforceTokens } from '../../server/src/transport/token-enforcement.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { uniquePrefix } from '../helpers/servers.ts';

const SECRET = 'lookup-close-secret-0123456789-abcdef';
const claims = { workspace: 'ws', agent_id: 'a1', role: 'agent' } as const;

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A socket's token is held (so a later revocation closes it) once its revocation lookup answers. A socket that closed
 * while the lookup was pending has had its close already: held then, it would never be released, and every later
 * revocation or expiry of its token would try to end it. The lookup is made to hang by stopping the test's own
 * redis-server, so the close lands inside it every time.
 */
describe('a socket closed while its token is looked up', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('is not held: a later revocation of its token ends only the live connection', async () => {
    const redisServer: RedisProcess = await startRedisProcess();
    cleanups.push(() => redisServer.dispose());
    // Resumed whatever the test's outcome, so the disposal and the client's quit are not held up.
    cleanups.push(() => redisServer.signal('SIGCONT'));
    const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
    cleanups.push(() => void redis.disconnect());
    await redis.ping();

    const ended: string[] = [];
    const log = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          const entry = JSON.parse(line) as { msg?: string; socket?: string };
          if (entry.msg?.startsWith('token revoked') && entry.socket !== undefined) ended.push(entry.socket);
        },
      },
    );
    const real = createRedisRevocations({ redis, prefix: uniquePrefix(), checkMs: 60_000, log });
    cleanups.push(() => real.close());
    // The real lookup, with a signal once it has answered (the refusal or hold follows in the same turn).
    let answered: () => void = () => undefined;
    const lookups: Revocations = {
      ...real,
      isRevoked: async (jti) => {
        const revoked = await real.isRevoked(jti);
        answered();
        return revoked;
      },
    };

    const http = createHttpServer();
    const server = new Server(http, { transports: ['websocket'] });
    cleanups.push(() => server.close().catch(() => undefined));
    // Runs before the token check: tells the test that a handshake has reached it, and on which connection.
    let arrived: (socket: ServerSocket) => void = () => undefined;
    server.use((socket, next) => {
      arrived(socket);
      next();
    });
    enforceTokens(server, { revocations: lookups, maxLifetimeSeconds: 3600, log });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const dial = (token: string): Socket => {
      const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
      cleanups.push(() => void socket.disconnect());
      return socket;
    };

    const token = await mintToken(SECRET, claims, '1h');
    const { jti, exp } = tokenTerms(token);

    // The lookup hangs: Redis is stopped, its connection open.
    redisServer.signal('SIGSTOP');
    const reached = new Promise<ServerSocket>((resolve) => (arrived = resolve));
    const looked = new Promise<void>((resolve) => (answered = resolve));
    const doomed = dial(token);
    const pending = await reached;
    const closed = new Promise((resolve) => pending.conn.once('close', resolve));
    doomed.disconnect();
    await closed;
    redisServer.signal('SIGCONT');
    await looked;
    await turn();

    // Another connection of the same token, admitted and held, for contrast.
    arrived = () => undefined;
    const live = dial(token);
    await new Promise<void>((resolve, reject) => {
      live.once('connect', resolve);
      live.once('connect_error', reject);
    });
    const liveEnded = new Promise((resolve) => live.once('disconnect', resolve));

    // Told synchronously on the node that revokes: every holder of the token is ended before revoke() settles.
    await real.revoke(jti ?? '', exp);
    expect(ended).toEqual([live.id]);
    expect(ended).not.toContain(pending.id);
    await liveEnded;
  });
});
