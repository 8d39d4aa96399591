import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { connect, createClient } from '../src/index.ts';

describe('connect() with an address that names no node', () => {
  it('rejects before dialing, with INVALID_ARGUMENT naming the address, instead of a DNS error at the deadline', async () => {
    for (const url of ['localhost:4617', '127.0.0.1:4617', 'ftp://x', ['http://127.0.0.1:1', 'node-b:4000']]) {
      const states: string[] = [];
      const attempt = connect({ url, agentId: 'a', connectTimeoutMs: 600_000, onState: (s) => states.push(s) });
      const error = await attempt.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(PlanHubError);
      const bad = Array.isArray(url) ? 'node-b:4000' : url;
      expect(error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `url "${bad}" is not a node's address; give one like http://127.0.0.1:4000.`,
      });
      expect(states).toEqual([]);
    }
  });

  it('accepts the schemes socket.io dials: http, https, ws and wss', () => {
    for (const url of ['http://127.0.0.1:1', 'https://example.test', 'ws://127.0.0.1:1', 'wss://example.test/x'])
      createClient({ url, agentId: 'a' }).close();
  });
});
