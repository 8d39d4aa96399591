import { afterEach, describe, expect, it } from 'vitest';
import { trackAbortRegistrations, type AbortRegistrations } from '../helpers/abort-registrations.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { endpointOf } from '../mcp/mcp-clients.ts';
import { initializeRequest, rawMcp } from '../mcp/raw-mcp.ts';

const ROUNDS = 150;

describe('abort signals of a running node', () => {
  let h: Harness | undefined;
  let registrations: AbortRegistrations | undefined;
  afterEach(async () => {
    registrations?.restore();
    await h?.close();
  });

  // On Node 20 every AbortSignal.any left an entry on each source for the source's life: combining each connection's
  // and each MCP call's signal with the node's shutdown and data-loss signals grew those by one per connection and
  // per call, for good (61 bytes each), and an MCP session's own signal by one per call. Counted as registrations,
  // not memory: no GC, no timing. Plain HTTP for MCP: the official client's fetch registers on its own signal per
  // request (undici lets go of those on GC), which is the client's business, not the node's.
  it('keeps no registration per socket connection or per MCP call on signals that outlive them', async () => {
    registrations = trackAbortRegistrations();
    h = await startHarness('memory');
    for (let i = 0; i < ROUNDS; i++) {
      const client = await h.client(`agent-${i}`);
      await client.getWorkspace({});
      client.close();
    }
    const endpoint = endpointOf(h.url, { workspace: 'ws', agentId: 'steady' });
    const opened = await rawMcp(endpoint, initializeRequest);
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    await rawMcp(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    for (let id = 2; id < ROUNDS + 2; id++) {
      const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'getWorkspace', arguments: {} } };
      const answer = await rawMcp(endpoint, call, session);
      expect(answer.text).not.toContain('"isError":true');
    }
    // The session is still open: its own signal must not grow with its calls either.
    const open = registrations.heaviest().registrations;
    const deleted = await fetch(endpoint, { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    const closed = registrations.heaviest().registrations;
    // Before: 300 with the session open (150 connections and 150 calls on the shutdown and data-loss signals).
    expect(open).toBeLessThan(10);
    expect(closed).toBeLessThan(10);
  });
});
