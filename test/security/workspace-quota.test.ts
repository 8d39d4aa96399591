import type { CallAck } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { paddedTodos } from './support/padded-todos.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';

const QUOTA = 200_000;
const items = paddedTodos;

/** A noisy workspace fills its own stored-byte quota; a bystander workspace on the same store keeps writing. */
describe.each(STORE_KINDS)('the workspace byte quota on the %s store', (kind) => {
  let h: Harness;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });
  const join = async (workspace: string) => {
    const c = await rawClient(h.url, openAuth(workspace, 'a'));
    clients.push(c);
    return c;
  };

  it('refuses the noisy workspace past its quota with nothing written, and keeps serving a bystander', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { workspaceBytes: QUOTA } });
    const noisy = await join('noisy');
    const bystander = await join('bystander');
    let refused: CallAck | undefined;
    // Each call adds ~35 KB to the list and ~35 KB+ of event: the quota is reached within a few calls.
    for (let i = 0; i < 20 && !refused; i++) {
      const ack = await noisy.call('todo', { action: 'create', todos: items(5, `n${i}-`) });
      if (!ack.ok) refused = ack;
    }
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'RESOURCE_EXHAUSTED', details: { kind: 'workspaceBytes', workspace: 'noisy', limit: QUOTA } },
    });
    expect(refused && !refused.ok && refused.error.message).toMatch(
      /quota workspaceBytes \(200000\)\. Nothing was written/,
    );
    const events = await h.server.services.store.readEvents('noisy', { count: 1000 });
    const listed = await noisy.call('todo', { action: 'list' });
    expect((await noisy.call('todo', { action: 'create', todos: items(5, 'again-') })).ok).toBe(false);
    expect(await h.server.services.store.readEvents('noisy', { count: 1000 })).toHaveLength(events.length);
    expect(await noisy.call('todo', { action: 'list' })).toEqual(listed);

    for (let i = 0; i < 5; i++)
      expect((await bystander.call('todo', { action: 'create', todos: items(2, `b${i}-`) })).ok).toBe(true);
    const kept = await bystander.call('todo', { action: 'list' });
    expect(kept.ok).toBe(true);
    expect(JSON.stringify(kept)).toContain('"b4-1"');
  });
});
