import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createMemoryStore, createServer, type PlanHubServer, type Store } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';

/** A real memory store that counts the documents each load reads. */
const countingStore = () => {
  const store = createMemoryStore({ eventRetention: 10_000 });
  const counted = { docs: 0 };
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    load: (workspace, keys) => ((counted.docs += keys.length), store.load(workspace, keys)),
    loadWith: (workspace, keys, alongside) => (
      (counted.docs += keys.length),
      store.loadWith(workspace, keys, alongside)
    ),
  };
  return { store: wrapped, counted };
};

/**
 * A call refused for the state it finds must not read more than it needs to decide: a createPlan refused because
 * a plan runs read every step of every unfinished plan (10,000 documents for 50 plans of 200 steps, 51-66 ms of CPU),
 * so one agent repeating it at 6 % of its call budget held a node at 78 % CPU.
 */
describe('the reads of a refused call', () => {
  let server: PlanHubServer | undefined;
  let agent: PlanHubClient | undefined;
  afterEach(async () => {
    agent?.close();
    await server?.close();
  });

  it('refuses createPlan while a plan runs from the plans’ headers and one plan’s step briefs', async () => {
    const { store, counted } = countingStore();
    server = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: { callsPerSecond: 10_000 } },
      { store },
    );
    const { url } = await server.listen();
    agent = await connect({ url, workspace: 'ws', agentId: 'hog' });
    const steps = Array.from({ length: 200 }, (_, i) => ({ description: `step ${i}` }));
    for (let i = 0; i < 10; i++) await agent.create_plan({ title: `Plan ${i}`, steps });

    const before = counted.docs;
    const refused = await expectRefusal(
      agent.createPlan({ title: 'Again', steps: ['a'] }),
      'FAILED_PRECONDITION',
      /^An active plan already exists: 'Plan \d' \(200 pending, 0 in progress\)/,
    );
    expect(refused.message).toMatch(/\(The active plan is \w+, in_progress\.\)$/);
    const read = counted.docs - before;
    // The agent, ten headers and the running plan's header; no step documents (2,000 of them before).
    expect(read).toBeLessThan(50);
  });
});
