import { request } from 'node:http';
import { connect } from 'node:net';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { PlanHubServer } from '@planhub/server';
import { createServer, mintToken } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../helpers/servers.ts';
import { callJson, mcpClient } from './mcp-clients.ts';
import { initializeRequest, listToolsRequest, rawMcp } from './raw-mcp.ts';

const SECRET = 'mcp-token-lookups-secret-0123456789';
const claims = { workspace: 'ws', agent_id: 'a1', role: 'agent' } as const;

/**
 * The revoked-token lookups (ZSCORE on `<prefix>:revoked-tokens`) Redis executes, seen through MONITOR on a plain
 * socket (ioredis's monitor mode can take the first lines for replies). `count` sends a marker and counts the
 * lookups executed before it, so none still on its way is missed.
 */
const revocationLookups = async (redisUrl: string, prefix: string) => {
  const { hostname, port } = new URL(redisUrl);
  const socket = connect(Number(port), hostname);
  const lookup = `"zscore" "${prefix}:revoked-tokens"`;
  let lookups = 0;
  let pending = '';
  const waiting = new Set<{ seen: (line: string) => boolean; resolve: () => void }>();
  const lineWhere = (seen: (line: string) => boolean) => new Promise<void>((resolve) => waiting.add({ seen, resolve }));
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(lookup)) lookups += 1;
      for (const waiter of waiting)
        if (waiter.seen(line)) {
          waiting.delete(waiter);
          waiter.resolve();
        }
    }
  });
  const started = lineWhere((line) => line === '+OK');
  socket.write('MONITOR\r\n');
  await started;
  const sender = new Redis(redisUrl);
  let markers = 0;
  return {
    /** Resolves at the next lookup Redis executes. */
    next: () => lineWhere((line) => line.includes(lookup)),
    async count(): Promise<number> {
      const marker = `lookups-marker-${prefix}-${(markers += 1)}`;
      const arrived = lineWhere((line) => line.includes(`"echo" "${marker}"`));
      await sender.echo(marker);
      await arrived;
      return lookups;
    },
    close() {
      socket.destroy();
      sender.disconnect();
    },
  };
};

const revoke = async (url: string, token: string) =>
  (await fetch(`${url}/tokens/revoke`, { method: 'POST', body: JSON.stringify({ token }) })).status;

/** An initialize POST whose body is held back until `finish`, and what it was answered. */
const slowInitialize = (endpoint: URL, token: string) => {
  const body = JSON.stringify(initializeRequest);
  const req = request(endpoint, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      'content-length': Buffer.byteLength(body),
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.once('error', reject);
  });
  req.write(body.slice(0, 10));
  return {
    finish: () => {
      req.end(body.slice(10));
      return answer;
    },
  };
};

describe('MCP sessions look their token up once, and still hear of its revocation', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const undo of cleanup.splice(0).reverse()) await undo();
  });
  const start = async (prefix: string) => {
    const node: PlanHubServer = createServer({
      port: 0,
      logLevel: 'silent',
      secret: SECRET,
      redisUrl: inject('redisUrl'),
      redisPrefix: prefix,
    });
    cleanup.push(() => node.close());
    return (await node.listen()).url;
  };

  it('asks Redis whether the token is revoked when the session opens, not on each of its requests', async () => {
    const prefix = uniquePrefix();
    const url = await start(prefix);
    const lookups = await revocationLookups(inject('redisUrl'), prefix);
    cleanup.push(() => lookups.close());
    const token = await mintToken(SECRET, claims, '1h');
    const client = await mcpClient('http', url, { workspace: 'ws', agentId: 'a1', token });
    cleanup.push(() => client.close());
    for (let call = 0; call < 5; call++)
      expect(await callJson<{ workspace: string }>(client, 'getWorkspace')).toMatchObject({ workspace: 'ws' });
    expect(await lookups.count()).toBe(1);
    // Another token on the same session (a host renewing it) is looked up once too, then held in its place.
    const renewed = await mintToken(SECRET, claims, '1h');
    const session = { 'mcp-session-id': (client.transport as { sessionId?: string }).sessionId ?? '' };
    for (let call = 0; call < 3; call++)
      expect(
        (await rawMcp(new URL('/mcp', url), listToolsRequest, { ...session, authorization: `Bearer ${renewed}` }))
          .status,
      ).toBe(200);
    expect(await lookups.count()).toBe(2);
  });

  it('refuses a session whose token was revoked after its lookup and before the session held it', async () => {
    const prefix = uniquePrefix();
    const url = await start(prefix);
    const lookups = await revocationLookups(inject('redisUrl'), prefix);
    cleanup.push(() => lookups.close());
    const token = await mintToken(SECRET, claims, '1h');
    const looked = lookups.next();
    // The token is looked up as soon as the headers are in; the session is opened once the body is.
    const opening = slowInitialize(new URL('/mcp', url), token);
    await looked;
    expect(await revoke(url, token)).toBe(200);
    const answer = await opening.finish();
    expect([answer.status, answer.text]).toEqual([401, expect.stringContaining('Token has been revoked') as unknown]);
  });
});
