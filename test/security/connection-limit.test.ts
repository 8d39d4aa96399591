import { describe, expect, it } from 'vitest';
import { openAuth, rawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

const refusal = (url: string, agent: string, workspace = 'ws') =>
  rawClient(url, openAuth(workspace, agent)).then(
    (c) => {
      c.close();
      return 'connected';
    },
    (err: Error) => err.message,
  );

describe('connections per agent', () => {
  const { redis, node, join } = serverFixture({ limits: { connectionsPerAgent: 2 } });
  const hold = (url: string, agent: string, workspace = 'ws') => join(url, workspace, agent);

  it('counts an agent across nodes on Redis, refuses the one too many with the reason, and frees slots', async () => {
    const [a, b] = [await node(redis()), await node(redis())];
    const first = await hold(a, 'busy');
    await hold(b, 'busy');
    expect(await refusal(a, 'busy')).toMatch(/Too many connections: agent busy already has 2 open \(limit 2\)/);
    expect(await refusal(b, 'busy')).toMatch(/Too many connections/);
    // Another agent, and the same agent name in another workspace, are counted separately.
    expect(await refusal(b, 'other')).toBe('connected');
    await hold(a, 'busy', 'elsewhere');
    // A refused handshake holds no slot, and a closed connection gives its slot back.
    first.close();
    await expect.poll(() => refusal(b, 'busy')).toBe('connected');
  });

  it('counts per node on the memory store', async () => {
    const url = await node({});
    await hold(url, 'busy');
    const second = await hold(url, 'busy');
    expect(await refusal(url, 'busy')).toMatch(/Too many connections/);
    second.close();
    await expect.poll(() => refusal(url, 'busy')).toBe('connected');
  });
});
