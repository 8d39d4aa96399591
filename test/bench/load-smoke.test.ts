import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from '@planhub/server';
import { Server } from 'socket.io';
import { describe, expect, it } from 'vitest';
import { runOpenLoop } from './load/open-loop.ts';
import { refusedCallSessions } from './load/sessions.ts';
import { sustains } from './stats/rate-search.ts';

/** The bench's load generation: the open loop every fixed-rate run uses, and the load sessions it drives. */

describe('bench open loop', () => {
  it('sends every request due at a fixed rate and counts the answered and the refused', async () => {
    const seen: number[] = [];
    const outcome = await runOpenLoop({
      rate: 2000,
      warmupMs: 0,
      durationMs: 50,
      drainMs: 1000,
      send: (i) => {
        seen.push(i);
        return i % 10 === 9 ? Promise.reject(new Error('refused')) : Promise.resolve();
      },
    });
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(outcome).toMatchObject({ sent: 100, completed: 90, errors: 10, firstError: 'refused' });
    expect(outcome.latency.count).toBe(90);
  });

  it('gives up on a run whose requests go unanswered, counting the unsent as failed', async () => {
    const outcome = await runOpenLoop({
      rate: 1000,
      warmupMs: 0,
      durationMs: 5000,
      drainMs: 100,
      abortAfterMs: 30,
      send: () => new Promise(() => {}),
    });
    expect(outcome.aborted).toBe(true);
    expect(outcome.sent).toBe(5000);
    expect(outcome.completed).toBe(0);
    expect(sustains(outcome, 25)).toBe(false);
  });
});

describe('bench refused-call load', () => {
  it('counts a call naming no tool as done when a real node refuses it with NOT_FOUND', async () => {
    const node = createServer({ port: 0, logLevel: 'silent' });
    const { url } = await node.listen();
    try {
      const session = await refusedCallSessions(url, 2)('smoke');
      try {
        await expect(Promise.all([session.send(0), session.send(1), session.send(2)])).resolves.toHaveLength(3);
      } finally {
        session.close();
      }
    } finally {
      await node.close();
    }
  });

  it('fails a request that a server answers with anything else', async () => {
    const http = createHttpServer();
    const io = new Server(http);
    io.on('connection', (socket) => socket.on('call', (_raw: unknown, ack: (a: unknown) => void) => ack({ ok: true })));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const session = await refusedCallSessions(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, 1)('x');
      try {
        await expect(session.send(0)).rejects.toThrow(/expected NOT_FOUND/);
      } finally {
        session.close();
      }
    } finally {
      await io.close();
    }
  });
});
