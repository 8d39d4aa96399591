import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { connect, createClient } from '../src/index.ts';

describe('connect() with an address that names no node', () => {
  it('rejects before dialing, with INVALID_ARGUMENT naming the address, instead of a DNS error at the deadline', async () => {
    const bad = [
      'localhost:4617',
      '127.0.0.1:4617',
      'ftp://x',
      'HTTP://127.0.0.1:4617',
      ' http://127.0.0.1:4617',
      'http:127.0.0.1:4617',
      'http:/127.0.0.1:4617',
      ['http://127.0.0.1:1', 'node-b:4000'],
    ];
    for (const url of bad) {
      const states: string[] = [];
      const attempt = connect({ url, agentId: 'a', connectTimeoutMs: 600_000, onState: (s) => states.push(s) });
      const error = await attempt.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(PlanHubError);
      const named = Array.isArray(url) ? 'node-b:4000' : url;
      expect(error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: `url "${named}" is not a node's address; give one like http://127.0.0.1:4000.`,
      });
      expect(states).toEqual([]);
    }
  });

  it('accepts the schemes socket.io dials: http, https, ws and wss', () => {
    for (const url of ['http://127.0.0.1:1', 'https://example.test', 'ws://127.0.0.1:1', 'wss://example.test/'])
      createClient({ url, agentId: 'a' }).close();
  });

  it('refuses a path, which socket.io would read as a namespace the node refuses', async () => {
    const error = await connect({ url: 'http://127.0.0.1:4617/mcp', agentId: 'a' }).catch((err: unknown) => err);
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: `url "http://127.0.0.1:4617/mcp" has a path; a node's address is its origin alone, like http://127.0.0.1:4000.`,
    });
  });
});
