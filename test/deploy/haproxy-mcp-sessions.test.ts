import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { callJson, mcpClient, type McpTransportKind } from '../mcp/mcp-clients.ts';
import { parsePrometheus, valueOf } from '../ops/prometheus-text.ts';
import { startHaproxy, type Balancer } from './haproxy.ts';

const WS = 'mcp-lb';
const STEPS = 5;

/** Two nodes on one Redis behind HAProxy, and MCP clients (HTTP or the stdio bridge) joining through it. */
const balancedNodes = () => {
  const setup = { cluster: undefined as unknown as Cluster, lb: undefined as unknown as Balancer };
  const clients: Client[] = [];
  beforeAll(async () => {
    setup.cluster = await startCluster({ nodes: 2, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
    const [a, b] = setup.cluster.urls.map((u) => new URL(u).host) as [string, string];
    setup.lb = await startHaproxy([a, b]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await setup.lb?.close();
    await setup.cluster?.close();
  });
  const join = async (kind: McpTransportKind, agentId: string) => {
    const client = await mcpClient(kind, setup.lb.url, { workspace: WS, agentId });
    clients.push(client);
    return client;
  };
  return { setup, join };
};

/** What the bridge said on stderr (it names every session it had to reopen). */
const bridgeSays = (client: Client) => {
  const said: string[] = [];
  (client.transport as StdioClientTransport).stderr?.on('data', (chunk: Buffer) => said.push(chunk.toString()));
  return () => said.join('');
};

/** The node that answered `tool` (each node counts the calls it answered). */
const nodeThatAnswered = async (urls: readonly string[], tool: string): Promise<number> => {
  const counts = await Promise.all(
    urls.map(async (u) =>
      valueOf(parsePrometheus(await (await fetch(`${u}/metrics`)).text()).samples, 'planhub_calls_total', { tool }),
    ),
  );
  expect(
    counts.filter((n) => n > 0),
    `${tool} answered by ${counts.join(' / ')}`,
  ).toHaveLength(1);
  return counts.findIndex((n) => n > 0);
};

/**
 * An MCP session lives in the memory of the node that opened it; deploy/haproxy.cfg must send all of a session's
 * /mcp requests there while still spreading sessions (and socket clients) over the nodes.
 */
describe('MCP sessions through HAProxy (deploy/haproxy.cfg) in front of two nodes on one Redis', () => {
  const { join } = balancedNodes();

  it.each<McpTransportKind>(['http', 'stdio'])(
    'answers every call of a plan run over %s without the session ever being lost',
    async (kind) => {
      const agent = await join(kind, `runner-${kind}`);
      const said = kind === 'stdio' ? bridgeSays(agent) : () => '';
      const calls: string[] = [];
      const call = async <T = Record<string, unknown>>(tool: string, args: Record<string, unknown> = {}) => {
        const result = await callJson<T>(agent, tool, args);
        calls.push(tool);
        return result;
      };
      await call('createPlan', {
        title: `Through the balancer over ${kind}`,
        steps: Array.from({ length: STEPS }, (_, i) => `step ${i + 1}`),
      });
      expect(await call('startPlan')).toMatchObject({ status: 'in_progress' });
      for (let i = 1; i <= STEPS; i++) {
        await call('setStepStatus', { step_id: `step_${i}`, status: 'in_progress' });
        await call('setStepStatus', { step_id: `step_${i}`, status: 'completed' });
      }
      expect(await call('getPlanStatus')).toMatchObject({ status: 'in_progress' });
      await call('completePlan', { status: 'completed' });
      expect(calls).toHaveLength(2 * STEPS + 4);
      // The bridge would hide a lost session by opening another; it must not have had to.
      expect(said()).not.toMatch(/ended the MCP session/);
    },
    60_000,
  );
});

describe('an MCP session through HAProxy (deploy/haproxy.cfg) whose node is killed', () => {
  const { setup, join } = balancedNodes();

  it('answers the client 404 "MCP session not found", and a new session works on the node that is left', async () => {
    const agent = await join('http', 'survivor');
    await callJson(agent, 'createPlan', { title: 'Before the node stops', steps: ['one'] });
    await callJson(agent, 'listSubscriptions');
    await setup.cluster.kill(await nodeThatAnswered(setup.cluster.urls, 'listSubscriptions'));

    // HAProxy gives up the dead node at once (option redispatch 1) and the live node does not know the session: the
    // client is told so in the answer the MCP specification asks for, 404, rather than a gateway error.
    const lost = await callJson(agent, 'getPlanStatus').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(lost).toBeInstanceOf(StreamableHTTPError);
    expect((lost as StreamableHTTPError).code).toBe(404);
    expect((lost as StreamableHTTPError).message).toMatch(
      /NOT_FOUND: MCP session not found .* initialize a new session/,
    );

    // What an MCP host does on that 404: initialize again, through the balancer, to the node that is left.
    const again = await join('http', 'survivor');
    expect(await callJson(again, 'getPlanStatus')).toMatchObject({ title: 'Before the node stops' });
  }, 60_000);
});

describe("the stdio bridge through HAProxy (deploy/haproxy.cfg) when its session's node is killed", () => {
  const { setup, join } = balancedNodes();

  it('opens a new session on the node that is left, and the host never notices', async () => {
    const bridge = await join('stdio', 'bridged');
    const said = bridgeSays(bridge);
    await callJson(bridge, 'createPlan', { title: 'Bridged', steps: ['one'] });
    await callJson(bridge, 'listSubscriptions');
    await setup.cluster.kill(await nodeThatAnswered(setup.cluster.urls, 'listSubscriptions'));

    expect(await callJson(bridge, 'getPlanStatus')).toMatchObject({ title: 'Bridged' });
    expect(said()).toMatch(/the node had ended the MCP session; opened a new one/);
  }, 60_000);
});
