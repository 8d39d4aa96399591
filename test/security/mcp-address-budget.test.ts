import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { mcpClient, refusalOf } from '../mcp/mcp-clients.ts';
import { rawClient, openAuth } from './support/raw-client.ts';

/** 50 units per client address per 10 s window; each agent alone could spend far more. */
const LIMITS = { callsPerAddressPerSecond: 5, rateWindowSeconds: 10, callsPerSecond: 1000 } as const;
const AGENTS = 5;
const CALLS_EACH = 20;

/**
 * The per-address budget (callsPerAddressPerSecond) says rotating agent ids does not multiply what one address may
 * spend. It was charged on the socket door only: 5 MCP agents from one address were admitted 120 calls a second
 * against a limit of 50, with no refusal.
 */
describe('the per-address call budget over MCP', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it('is one budget for every agent of an address, through /mcp and the socket together', async () => {
    h = await startHarness('memory', { limits: LIMITS });
    const url = h.url;
    const clients = await Promise.all(
      Array.from({ length: AGENTS }, (_, i) => mcpClient('http', url, { workspace: 'ws', agentId: `rotating-${i}` })),
    );
    try {
      const answers: string[] = [];
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < CALLS_EACH; i++) {
            const result = (await client.callTool({ name: 'getPlanStatus', arguments: {} })) as CallToolResult;
            answers.push(refusalOf(result));
          }
        }),
      );
      const overAddress = answers.filter((a) => a.startsWith('RESOURCE_EXHAUSTED: Too many calls from '));
      // 100 calls against 50 units: the rest are the address's refusals (the others are "no plan" refusals).
      expect(overAddress.length).toBe(AGENTS * CALLS_EACH - 50);
      // The same address's socket calls draw on the same spent budget.
      const socket = await rawClient(url, openAuth('ws', 'socket-agent'));
      try {
        expect(await socket.call('getPlanStatus', {})).toMatchObject({
          ok: false,
          error: { code: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/^Too many calls from /) as string },
        });
      } finally {
        socket.close();
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
