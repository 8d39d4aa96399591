import { request } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** Plain HTTP against /mcp, for what the official client hides: session ids, status codes, foreign tokens. */
export const rawMcp = async (
  endpoint: URL,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; sessionId: string | null; retryAfter: string | null; text: string }> => {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    sessionId: response.headers.get('mcp-session-id'),
    retryAfter: response.headers.get('retry-after'),
    text: await response.text(),
  };
};

export const initializeRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export const listToolsRequest = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** An initialize POST with headers fetch will not let a test set (Host), and what it was answered. */
export const initializeAnswer = (
  endpoint: URL,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; text: string }> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify(initializeRequest);
    const req = request(
      endpoint,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });

export const initializeWithHeaders = async (endpoint: URL, headers: Record<string, string>): Promise<number> =>
  (await initializeAnswer(endpoint, headers)).status;
