import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach } from 'vitest';
import type { Harness } from '../helpers/servers.ts';
import { mcpClient, type McpTransportKind } from './mcp-clients.ts';

/**
 * The MCP sessions of one test, each an agent of workspace `team` on the test's node, closed after it (and then the
 * node). Call it in a describe block; set `team.harness` once the node is up.
 */
export const mcpTeam = (transport: McpTransportKind) => {
  const clients: Client[] = [];
  const team = {
    harness: undefined as Harness | undefined,
    /** Opens a session for `agentId`, offering only `dialects` when given. */
    join: async (agentId: string, dialects?: string): Promise<Client> => {
      const client = await mcpClient(transport, team.harness?.url ?? '', {
        workspace: 'team',
        agentId,
        ...(dialects !== undefined ? { dialects } : {}),
      });
      return team.adopt(client);
    },
    /** Closes every session now (before a node the test started itself must close). */
    closeSessions: async () => void (await Promise.all(clients.splice(0).map((c) => c.close()))),
    /** Closes a session the test opened itself along with the others. */
    adopt: (client: Client): Client => {
      clients.push(client);
      return client;
    },
  };
  afterEach(async () => {
    await team.closeSessions();
    await team.harness?.close();
    team.harness = undefined;
  });
  return team;
};
