import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import type { CallAck } from '@planhub/shared';
import { MAX_EVENT_BYTES, MAX_ITEM_BYTES, MAX_NOTE_BYTES, serializedBytes } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

const items = (n: number, pad: number) =>
  Array.from({ length: n }, (_, i) => ({
    content: `c${i}`,
    activeForm: `a${i}`,
    status: 'pending',
    pad: 'x'.repeat(pad),
  }));

/** Every free-form value has a byte cap measured as stored (JSON), and so does every event. */
describe('byte budgets', () => {
  const { started, join } = serverFixture({ approvalPolicy: 'auto' });
  let node: PlanHubServer | undefined;
  const start = async (config: ServerConfigInput = {}) => {
    const { url, server } = await started(config);
    node = server;
    return join(url, 'ws', 'a');
  };
  const eventsOf = async () => (await node?.services.store.readEvents('ws', { count: 10_000 })) ?? [];
  const codeOf = (ack: CallAck) => (ack.ok ? 'ok' : ack.error.code);

  it('caps a todo item with its extra keys, and a plan-mode note given as an object', async () => {
    const a = await start();
    const item = await a.call('todo', { action: 'create', todos: items(1, MAX_ITEM_BYTES) });
    expect(item).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!item.ok && item.error.message).toMatch(new RegExp(`at most ${MAX_ITEM_BYTES} bytes as JSON`));
    expect(codeOf(await a.call('todo', { action: 'create', todos: items(1, MAX_ITEM_BYTES - 200) }))).toBe('ok');

    expect(codeOf(await a.call('plan_enter', { goal: 'g' }))).toBe('ok');
    const plan = (risks: unknown[]) => ({
      plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }], risks },
    });
    const note = await a.call('plan_exit', plan([{ risk: 'x'.repeat(MAX_NOTE_BYTES) }]));
    expect(note).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(!note.ok && note.error.message).toMatch(/note object may be at most/);
    expect(codeOf(await a.call('plan_exit', plan([{ risk: 'r', mitigation: 'm' }])))).toBe('ok');
  });

  it('refuses a call whose event would exceed the event maximum, and writes nothing', async () => {
    const a = await start();
    const before = (await eventsOf()).length;
    const count = Math.ceil(MAX_EVENT_BYTES / (MAX_ITEM_BYTES - 200)) + 2;
    const ack = await a.call('todo', { action: 'create', todos: items(count, MAX_ITEM_BYTES - 200) });
    expect(ack).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED', details: { kind: 'event_bytes' } } });
    expect(await eventsOf()).toHaveLength(before);
    expect(await a.call('todo', { action: 'list' })).toMatchObject({ ok: true, result: { count: 0 } });
  });

  it('measures a binary output as it is stored, not by its byte length', async () => {
    const a = await start({ limits: { outputBytes: 1024 } });
    await a.call('createPlan', { title: 't', steps: ['1', '2'] });
    await a.call('startPlan', {});
    // 400 bytes on the wire, about 1,600 as the stored JSON {"type":"Buffer","data":[255,…]}.
    const ack = await a.call('completeStepWithOutput', { step_id: 'step_1', output: { blob: Buffer.alloc(400, 255) } });
    expect(ack).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
    expect(!ack.ok && ack.error.message).toMatch(/output is larger than 1024 bytes/);
  });

  it('keeps the memory store’s event logs within their byte budget, newest first', async () => {
    const budget = 300_000;
    const a = await start({ memoryEventBytes: budget });
    for (let i = 0; i < 6; i++)
      expect(codeOf(await a.call('todo', { action: 'create', todos: items(20, 7000) }))).toBe('ok');
    const kept = await eventsOf();
    expect(kept.reduce((sum, e) => sum + serializedBytes(e), 0)).toBeLessThanOrEqual(budget);
    expect(kept.at(-1)?.event_type).toBe('todos_updated');
    expect(kept.length).toBeGreaterThan(0);
  });
});
