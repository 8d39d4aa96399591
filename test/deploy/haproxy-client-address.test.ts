import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { connectFrom } from '../security/support/bound-client.ts';
import { openAuth } from '../security/support/raw-client.ts';
import { startHaproxy, type Balancer } from './haproxy.ts';

const CAP = 2;

/**
 * Every client's TCP peer at a node behind deploy/haproxy.cfg is HAProxy; with PLANHUB_TRUSTED_PROXIES naming it,
 * the node counts the address HAProxy forwards for instead. Both of the cfg's backends are the same node, so the
 * per-node cap is the one every connection meets.
 */
describe('per-address caps behind HAProxy (deploy/haproxy.cfg, PLANHUB_TRUSTED_PROXIES=127.0.0.1)', () => {
  let node: ServerProcess;
  let lb: Balancer;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    node = await startServerProcess({
      env: { PLANHUB_TRUSTED_PROXIES: '127.0.0.1', PLANHUB_LIMIT_CONNECTIONS_PER_ADDRESS: String(CAP) },
    });
    const at = `127.0.0.1:${node.port}`;
    lb = await startHaproxy([at, at]);
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await lb?.close();
    await node?.stop('SIGTERM');
  });

  const connect = async (from: string, agent: string, headers: Record<string, string> = {}) => {
    const attempt = await connectFrom(lb.url, from, openAuth('ws', agent), headers);
    if (attempt.ok) sockets.push(attempt.socket);
    return attempt;
  };

  it('refuses one client its connection past the cap while another client behind the same balancer connects', async () => {
    for (let i = 0; i < CAP; i++) expect((await connect('127.0.0.2', `first-${i}`)).ok).toBe(true);

    // HAProxy appends the address it saw to whatever the client claims; the node reads what HAProxy wrote.
    const over = await connect('127.0.0.2', 'first-over', { 'x-forwarded-for': '127.0.0.9' });
    expect(over.ok).toBe(false);
    const refusal = over.ok ? undefined : over.error;
    expect(refusal?.data).toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    // The refusal (and the node's log line) names the client, not the balancer.
    expect(refusal?.message).toContain('127.0.0.2 already holds 2');

    const other = await connect('127.0.0.3', 'second');
    expect(other.ok ? 'connected' : other.error.message).toBe('connected');
  });
});
