import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { isPresenceEvent } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/** Refusals decided on what a call costs before the work it would cause: its frame, its address, its role. */
describe('cost before work', () => {
  let node: PlanHubServer | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await node?.close();
    node = undefined;
  });
  const start = async (config: ServerConfigInput = {}) => {
    node = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto', ...config });
    return (await node.listen()).url;
  };
  const client = async (url: string, agent: string, role: 'agent' | 'dashboard' = 'agent') => {
    const c = await rawClient(url, openAuth('ws', agent, role));
    clients.push(c);
    return c;
  };
  const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
  const codeOf = (ack: CallAck) => (ack.ok ? 'ok' : ack.error.code);

  it('refuses a frame with too many keys on its raw text, writes nothing, and keeps the connection', async () => {
    const url = await start({ limits: { frameValues: 1000 } });
    const a = await client(url, 'a');
    const ack = await a.call('createPlan', { title: 't', steps: ['s'], extra: manyKeys(5000) });
    expect(ack).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
    expect(!ack.ok && ack.error.message).toMatch(/more than 1000 keys and array elements/);
    // Only the agent's arrival is logged (presence); the refused call wrote nothing.
    const logged = (await node?.services.store.readEvents('ws', { count: 10 })) ?? [];
    expect(logged.filter((e) => !isPresenceEvent(e.event_type))).toEqual([]);
    expect(codeOf(await a.call('createPlan', { title: 't', steps: ['s'], extra: manyKeys(100) }))).toBe('ok');
  });

  it('charges a call by its size: a 100 KB call spends the budget of several small ones', async () => {
    // 30 units per 30 s window; a 100 KB call costs 1 + 6 (a unit per 16 KiB), charged before validation refuses it.
    const url = await start({ limits: { callsPerSecond: 1, rateWindowSeconds: 30 } });
    const a = await client(url, 'a');
    for (let i = 0; i < 4; i++)
      expect(codeOf(await a.call('createPlan', { title: 'x'.repeat(100_000), steps: ['s'] }))).toBe('INVALID_ARGUMENT');
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) answers.push(codeOf(await a.call('listTools', {})));
    expect(answers).toEqual(['ok', 'ok', 'RESOURCE_EXHAUSTED']);
  });

  it('holds clients rotating agent ids to the budget of their address', async () => {
    const url = await start({ limits: { callsPerSecond: 1000, callsPerAddressPerSecond: 1, rateWindowSeconds: 10 } });
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) {
      const fresh = await client(url, `rotating-${i}`);
      answers.push(codeOf(await fresh.call('listTools', {})));
    }
    expect(answers.slice(0, 10)).toEqual(Array(10).fill('ok'));
    expect(answers.slice(10)).toEqual(Array(10).fill('RESOURCE_EXHAUSTED'));
  });

  it('caps connections per address and per node, whatever agent ids they claim', async () => {
    const url = await start({ limits: { connectionsPerAddress: 3 } });
    for (let i = 0; i < 3; i++) await client(url, `id-${i}`);
    const refused = await rawClient(url, openAuth('ws', 'id-3')).catch((err: Error & { data?: unknown }) => err);
    expect(refused).toMatchObject({ data: { code: 'RESOURCE_EXHAUSTED' } });
    expect((refused as Error).message).toMatch(/127\.0\.0\.1 already holds 3 \(limit 3\)/);
    const closed = new Promise((resolve) => clients[0]?.socket.once('disconnect', resolve));
    clients.shift()?.close();
    await closed;
    await expect.poll(() => rawClient(url, openAuth('ws', 'id-4')).then((c) => (clients.push(c), 'in'))).toBe('in');
    await node?.close();

    const url2 = await start({ limits: { connectionsPerNode: 2 } });
    await client(url2, 'x');
    await client(url2, 'y');
    await expect(rawClient(url2, openAuth('other', 'z'))).rejects.toMatchObject({
      data: { code: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/this node holds 2/) as unknown },
    });
  });

  it('refuses a dashboard’s write on the tool name, before its arguments are parsed', async () => {
    const url = await start();
    const wall = await client(url, 'wall', 'dashboard');
    const ack = await wall.call('createPlan', { title: 5 }, 'x'.repeat(500));
    expect(ack).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
  });
});
