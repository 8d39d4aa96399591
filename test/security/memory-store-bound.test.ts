import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { paddedTodos } from './support/padded-todos.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

/** The node's bound on everything its memory store holds, and the event budget counted within it. */
const BOUND = 600_000;
const EVENT_BUDGET = 150_000;
const items = paddedTodos;

/**
 * The flood the per-workspace quota cannot stop: a client naming a new workspace (and agent) for each call. The
 * node's bound refuses the call that would pass it, whatever its workspace, and keeps serving reads and deletes.
 */
describe('the memory store’s bound across workspaces', () => {
  let h: Harness;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });
  const join = async (workspace: string, agent: string) => {
    const c = await rawClient(h.url, openAuth(workspace, agent));
    clients.push(c);
    return c;
  };

  it('refuses the write past it with nothing written, serves other workspaces, and takes writes again after deletes', async () => {
    h = await startHarness('memory', {
      approvalPolicy: 'auto',
      memoryStoreBytes: BOUND,
      memoryEventBytes: EVENT_BUDGET,
      limits: { callsPerSecond: 100_000, callsPerAddressPerSecond: 1_000_000 },
    });
    const bystander = await join('quiet', 'bystander');
    expect((await bystander.call('todo', { action: 'create', todos: items(1, 'kept-') })).ok).toBe(true);

    // Each workspace gets one list of ~28 KB (and an event as large): far below its own 64 MiB quota.
    const store = h.server.services.store;
    const filled: RawClient[] = [];
    let refused: CallAck | undefined;
    let refusedAgent: RawClient | undefined;
    let eventsBefore: unknown[] = [];
    for (let k = 0; k < 60 && !refused; k++) {
      const agent = await join(`flood-${k}`, `a${k}`);
      // What connecting wrote (the agent_online event), before the call.
      eventsBefore = await store.readEvents(`flood-${k}`, { count: 100 });
      const ack = await agent.call('todo', { action: 'create', todos: items(4, `f${k}-`) });
      if (ack.ok) filled.push(agent);
      else [refused, refusedAgent] = [ack, agent];
    }
    expect(filled.length).toBeGreaterThanOrEqual(8);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { kind: 'memoryStoreBytes', limit: BOUND } },
    });
    const error = refused && !refused.ok ? refused.error : undefined;
    const details = error?.details as { used: number; needed: number; limit: number };
    expect(details.used).toBeLessThanOrEqual(BOUND);
    expect(details.used + details.needed).toBeGreaterThan(BOUND);
    expect(error?.message).toMatch(
      /^This PlanHub node's in-memory store holds \d+ bytes across all workspaces; this change needs \d+ more, past its bound memoryStoreBytes \(600000\)\. Nothing was written; reads still work\./,
    );
    expect(error?.message).toContain('PLANHUB_MEMORY_STORE_BYTES');

    // Nothing of the refused call was written: no list, no event, in its new workspace.
    const refusedWorkspace = `flood-${filled.length}`;
    expect(await refusedAgent?.call('todo', { action: 'list' })).toMatchObject({ ok: true, result: { count: 0 } });
    expect(await store.readEvents(refusedWorkspace, { count: 100 })).toEqual(eventsBefore);
    // A filled workspace cannot grow either, and keeps what it had.
    const first = filled[0] as RawClient;
    const before = await first.call('todo', { action: 'list' });
    const events = await store.readEvents('flood-0', { count: 100 });
    const grow = await first.call('todo', { action: 'create', todos: items(8, 'more-') });
    expect(grow).toMatchObject({ ok: false, error: { details: { kind: 'memoryStoreBytes' } } });
    expect(await first.call('todo', { action: 'list' })).toEqual(before);
    expect(await store.readEvents('flood-0', { count: 100 })).toEqual(events);

    // Reads are served in every workspace, the bystander's included.
    const kept = await bystander.call('todo', { action: 'list' });
    expect(kept).toMatchObject({ ok: true, result: { count: 1 } });
    expect(JSON.stringify(kept)).toContain('kept-0');
    expect(await filled[5]?.call('todo', { action: 'list' })).toMatchObject({ ok: true, result: { count: 4 } });

    // Emptying lists always applies, and frees room for the refused call.
    for (const agent of filled.slice(0, 4))
      expect(await agent.call('todo', { action: 'create', todos: [] })).toMatchObject({ ok: true });
    const again = await refusedAgent?.call('todo', { action: 'create', todos: items(4, 'again-') });
    expect(again).toMatchObject({ ok: true, result: { count: 4 } });
  });
});
