import { TOOLS, takesRequestId } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpTools } from '../../server/src/mcp/tool-list.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient, type RawClient } from '../security/support/raw-client.ts';

/**
 * unsubscribe is read-only for the workspace (a dashboard may call it) but drops the caller's own subscriptions, so
 * a repeat with its request_id, after a lost answer, must answer what the first call did, not "You had none".
 */
describe.each(STORE_KINDS)('unsubscribe repeated with its request_id (%s store)', (kind) => {
  let h: Harness | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h?.close();
  });

  it('answers the first call again, for all and for one subscription', async () => {
    h = await startHarness(kind);
    const c = await rawClient(h.url, openAuth('ws', 'watcher'));
    clients.push(c);
    const subscribe = async (eventTypes: string[]) => {
      const ack = await c.call('subscribeToTasks', { event_types: eventTypes, after_event: '$' });
      if (!ack.ok) throw new Error(ack.error.message);
      return (ack.result as { subscription_id: string }).subscription_id;
    };
    await subscribe(['plan_created']);
    await subscribe(['plan_started']);
    const first = await c.call('unsubscribe', { all: true }, 'req-all');
    expect(first).toMatchObject({ ok: true, result: { removed: 2 } });
    expect(await c.call('unsubscribe', { all: true }, 'req-all')).toEqual(first);
    // A new request is a new call: nothing is left to remove.
    expect(await c.call('unsubscribe', { all: true }, 'req-again')).toMatchObject({ ok: true, result: { removed: 0 } });

    const id = await subscribe(['plan_completed']);
    const one = await c.call('unsubscribe', { subscription_id: id }, 'req-one');
    expect(one).toMatchObject({ ok: true, result: { removed: 1, subscription_id: id } });
    expect(await c.call('unsubscribe', { subscription_id: id }, 'req-one')).toEqual(one);
  });
});

describe('which tools take a request_id', () => {
  it('gives unsubscribe one on every client path, and no other read-only tool', () => {
    expect(takesRequestId(TOOLS.unsubscribe)).toBe(true);
    expect(takesRequestId(TOOLS.getPlanStatus)).toBe(false);
    expect(takesRequestId(TOOLS.setStepStatus)).toBe(true);
    const schemaOf = (name: string) =>
      mcpTools(new Set(['000'])).find((t) => t.name === name)?.inputSchema.properties ?? {};
    expect(schemaOf('unsubscribe')).toHaveProperty('request_id');
    expect(schemaOf('getPlanStatus')).not.toHaveProperty('request_id');
  });
});
