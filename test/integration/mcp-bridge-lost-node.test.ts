import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { CLI } from './cli-process.ts';

type Message = { id?: string | number; method?: string; result?: unknown; error?: { code: number; message: string } };

/** `planhub mcp` spawned as a host spawns it, spoken to over raw stdio: one JSON-RPC message per line. */
const bridge = (url: string) => {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [CLI, 'mcp', '--url', url, '--workspace', 'ws', '--agent', 'waiter'],
    { env: { PATH: process.env.PATH ?? '' } },
  );
  const received: Message[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    received.push(JSON.parse(line) as Message);
    for (const wake of waiters) wake();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  /** The first message `match` accepts, or undefined after `ms`. */
  const next = (match: (m: Message) => boolean, ms: number) =>
    new Promise<Message | undefined>((resolve) => {
      const check = () => {
        const found = received.find(match);
        if (!found) return;
        finish(found);
      };
      const finish = (found: Message | undefined) => {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => finish(undefined), ms);
      waiters.add(check);
      check();
    });
  return {
    send: (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    answerTo: (id: number, ms: number) => next((m) => m.id === id && m.method === undefined, ms),
    next,
    received,
    stderr: () => stderr,
    stop: () => child.kill('SIGKILL'),
  };
};

describe('planhub mcp when the node dies under a call', () => {
  let node: ServerProcess | undefined;
  const stops: (() => void)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await node?.stop('SIGKILL');
    node = undefined;
  });

  it('answers the waiting call with a JSON-RPC error at once, and keeps working once the node is back', async () => {
    node = await startServerProcess({});
    const host = bridge(node.url);
    stops.push(host.stop);
    host.send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(await host.answerTo(1, 15_000)).toMatchObject({
      result: { protocolVersion: expect.any(String) as unknown },
    });
    host.send({ method: 'notifications/initialized' });
    host.send({
      id: 2,
      method: 'tools/call',
      params: { name: 'waitForEvents', arguments: { timeout: 30 }, _meta: { progressToken: 'wait' } },
    });
    // The node reports progress when the wait starts: the call is on the node, its answer stream open.
    expect(await host.next((m) => m.method === 'notifications/progress', 15_000)).toBeDefined();

    await node.stop('SIGKILL');
    const answer = await host.answerTo(2, 5000);
    expect(answer).toMatchObject({ error: { code: -32000 } });
    expect(answer?.error?.message).toMatch(/connection .*lost.*call .*again/i);

    // Not wedged: once the node is back, the bridge opens a new session by itself and the next call is answered.
    await node.restart();
    host.send({ id: 3, method: 'tools/list', params: {} });
    expect(await host.answerTo(3, 15_000)).toMatchObject({ result: { tools: expect.any(Array) as unknown } });
    // One answer per request: no late reply for the call already answered.
    expect(host.received.filter((m) => m.id === 2 && m.method === undefined)).toHaveLength(1);
  });
});
