import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type McpTransportKind = 'http' | 'stdio';

export interface AgentSpec {
  workspace: string;
  agentId: string;
  dialects?: string;
  token?: string;
  /** Put workspace and agent_id in the URL even with a token (secret mode must ignore them). */
  urlIdentity?: boolean;
}

/** The endpoint URL an MCP host is configured with. */
export const endpointOf = (url: string, spec: AgentSpec): URL => {
  const endpoint = new URL('/mcp', url);
  if (spec.token === undefined || spec.urlIdentity === true) {
    endpoint.searchParams.set('workspace', spec.workspace);
    endpoint.searchParams.set('agent_id', spec.agentId);
  }
  if (spec.dialects !== undefined) endpoint.searchParams.set('dialects', spec.dialects);
  return endpoint;
};

/** The official MCP client, talking to the node's /mcp directly or through `planhub mcp` spawned as a host would. */
export const mcpClient = async (kind: McpTransportKind, url: string, spec: AgentSpec): Promise<Client> => {
  const client = new Client({ name: `test-${spec.agentId}`, version: '1.0.0' });
  if (kind === 'http') {
    const headers: Record<string, string> = spec.token === undefined ? {} : { authorization: `Bearer ${spec.token}` };
    await client.connect(new StreamableHTTPClientTransport(endpointOf(url, spec), { requestInit: { headers } }));
    return client;
  }
  const args = ['client-sdk/bin/planhub.mjs', 'mcp', '--url', url, '--workspace', spec.workspace];
  args.push('--agent', spec.agentId);
  if (spec.dialects !== undefined) args.push('--dialects', spec.dialects);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (spec.token !== undefined) env.PLANHUB_TOKEN = spec.token;
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, env, stderr: 'pipe' }));
  return client;
};

const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/**
 * A refusal's wire error as `CODE: message`, read from the result's `_meta` (its text is the dialect's own shape);
 * '' for a result that is not a refusal.
 */
export const refusalOf = (result: CallToolResult): string => {
  const error = (result._meta as { 'planhub/error'?: { code: string; message: string } } | undefined)?.[
    'planhub/error'
  ];
  return result.isError === true && error !== undefined ? `${error.code}: ${error.message}` : '';
};

/** Calls a tool and returns its JSON result; a tool error becomes a thrown Error with its `CODE: message`. */
export const callJson = async <T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(refusalOf(result) || textOf(result));
  return JSON.parse(textOf(result)) as T;
};

/** The raw tool result, for asserting on errors. */
export const callRaw = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

export { textOf };
