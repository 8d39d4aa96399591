import { MAX_EVENT_BYTES, MAX_ITEM_BYTES } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { spawnNode, type SpawnedProcess } from './support/spawn-node.ts';

/** Largest accepted calls: each item just under the item cap, as many as keep the event under the event cap. */
const ITEM_PAD = MAX_ITEM_BYTES - 200;
const ITEMS = Math.floor((MAX_EVENT_BYTES * 0.9) / MAX_ITEM_BYTES);
/** About 115 MB written in all: more than the whole heap, had the store kept it. */
const CALLS = 250;
const IN_FLIGHT = 4;

const bigList = (call: number) =>
  Array.from({ length: ITEMS }, (_, i) => ({
    content: `item ${i} of call ${call}`,
    activeForm: `doing item ${i}`,
    status: 'pending',
    pad: String(call % 10).repeat(ITEM_PAD),
  }));

/**
 * One agent writing the largest calls the schemas accept, over and over, into a node whose heap is 96 MB: every
 * field has a byte cap, every event a maximum size, and the memory store keeps a bounded number of event bytes.
 */
describe('the memory store under one agent’s largest calls', () => {
  const processes: SpawnedProcess[] = [];
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const p of processes.splice(0)) await p.stop();
  });

  it('keeps the node up with a small heap, and serves a bystander in another workspace', async () => {
    const node = await spawnNode(
      {
        PLANHUB_LIMIT_CALLS_PER_SECOND: '100000',
        PLANHUB_LIMIT_CALLS_PER_ADDRESS_PER_SECOND: '1000000',
        PLANHUB_MEMORY_EVENT_BYTES: String(24 * 1024 * 1024),
      },
      '--max-old-space-size=96',
    );
    processes.push(node);
    const hog = await rawClient(node.url, openAuth('noisy', 'hog'));
    const bystander = await rawClient(node.url, openAuth('quiet', 'bystander'));
    clients.push(hog, bystander);

    const oversized = await hog.call('todo', {
      action: 'create',
      todos: [{ content: 'x', activeForm: 'x', status: 'pending', pad: 'x'.repeat(MAX_ITEM_BYTES) }],
    });
    expect(oversized).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });

    let sent = 0;
    const codes = new Map<string, number>();
    const worker = async () => {
      while (sent < CALLS) {
        const call = sent++;
        const ack = await hog.call('todo', { action: 'create', todos: bigList(call) });
        const code = ack.ok ? 'ok' : ack.error.code;
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

    expect(Object.fromEntries(codes)).toEqual({ ok: CALLS });
    expect(node.child.exitCode).toBeNull();
    const plan = await bystander.call('createPlan', { title: 'still here', steps: ['a'] });
    expect(plan).toMatchObject({ ok: true });
    const list = await hog.call('todo', { action: 'list' });
    expect(list).toMatchObject({ ok: true, result: { count: ITEMS } });
  }, 120_000);
});
