import { Writable } from 'node:stream';
import { createLogger, createServer } from '@planhub/server';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { sdkSubscriber } from './support/sdk-subscriber-process.ts';

/** Every log line the node writes, parsed. */
const capturedLog = () => {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLogger('warn', stream) };
};

/**
 * A node stopped while one of its clients is frozen (SIGSTOP: the connection stays open, nothing answers its close)
 * waits out its bound after the drain, as it should. Its warnings blamed the store, which was healthy, four times: an
 * operator reading them looked at Redis instead of the client.
 */
describe('stopping a node while a client is frozen', () => {
  const subscriber = { current: undefined as ReturnType<typeof sdkSubscriber> | undefined };
  afterAll(() => subscriber.current?.stop());

  it('names the frozen client as the cause, and blames the store for nothing', async () => {
    const { lines, log } = capturedLog();
    const server = createServer({ port: 0, approvalPolicy: 'auto', shutdownGraceMs: 500 }, { log });
    const { url } = await server.listen();
    const client = sdkSubscriber({ url, workspace: 'frozen', agent: 'stuck', types: 'todos_updated' });
    subscriber.current = client;
    await eventually(() => expect(client.reports.map((r) => r.kind)).toContain('subscribed'), { timeout: 30_000 });
    client.signal('SIGSTOP');

    await server.close();

    const cut = lines.filter((l) => String(l.msg).startsWith('shutdown step cut short'));
    // The frozen connection holds the sockets step: without it nothing is cut short, and the test proves nothing.
    expect(cut.map((l) => l.step)).toContain('sockets');
    expect(cut.find((l) => l.step === 'sockets')?.msg).toMatch(/client does not close its connection/);
    expect(cut.filter((l) => String(l.msg).includes('store is slow'))).toEqual([]);
  }, 60_000);
});
