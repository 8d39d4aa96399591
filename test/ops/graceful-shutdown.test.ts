import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type PlanHubServer, type Store } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';

/** A real memory store whose commits can be held at a gate, so a call is provably in flight when shutdown starts. */
const gatedStore = () => {
  const store = createMemoryStore({ eventRetention: 1000 });
  let gate: Promise<void> | undefined;
  let open = () => {};
  let arrived = () => {};
  const wrapped = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      if (key !== 'commit') return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: Parameters<Store['commit']>) => {
        if (gate) {
          arrived();
          await gate;
        }
        return target.commit(...args);
      };
    },
  });
  return {
    store: wrapped,
    /** The next commits wait; resolves when one has arrived at the gate. */
    hold(): Promise<void> {
      gate = new Promise((resolve) => (open = resolve));
      return new Promise((resolve) => (arrived = resolve));
    },
    release(): void {
      gate = undefined;
      open();
    },
  };
};

describe('graceful shutdown', () => {
  const nodes: PlanHubServer[] = [];
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const n of nodes.splice(0)) await n.close();
  });

  it('finishes the call in flight, then moves clients to another node where a waiting startPlan gets its answer', async () => {
    const gated = gatedStore();
    const start = async () => {
      const node = createServer({ port: 0, logLevel: 'silent' }, { store: gated.store });
      nodes.push(node);
      return { node, url: (await node.listen()).url };
    };
    const a = await start();
    const b = await start();
    const agent = await connect({ url: [a.url, b.url], workspace: 'ws', agentId: 'main' });
    const waiter = await connect({ url: [a.url, b.url], workspace: 'ws', agentId: 'sub' });
    const user = await connect({ url: b.url, workspace: 'ws', agentId: 'alice', role: 'user' });
    clients.push(agent, waiter, user);
    const states: string[] = [];
    agent.on('state', (state, info) => states.push(`${state}${info.url ? ` ${info.url}` : ''}`));

    await waiter.createPlan({ title: 'Wait for me', steps: ['x'] });
    const decision = waiter.startPlan({});
    await eventually(async () =>
      expect((await user.getPlanStatus({ agent_id: 'sub' })).status).toBe('awaiting_approval'),
    );
    await agent.createPlan({ title: 'Busy', steps: ['y'] });

    const held = gated.hold();
    const inFlight = agent.startPlan({ wait: false });
    await held;
    const closing = a.node.close();
    gated.release();
    // The call that was doing work when shutdown began is answered, not cut off.
    expect(await inFlight).toMatchObject({ status: 'awaiting_approval' });
    await closing;

    await eventually(() => expect(states).toContain(`connected ${b.url}`));
    await user.plan_approve({ agent_id: 'sub' });
    expect(await decision).toMatchObject({ status: 'in_progress' });
    expect(await agent.getPlanStatus({})).toMatchObject({ title: 'Busy', status: 'awaiting_approval' });
  });
});
