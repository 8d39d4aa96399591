import type { PlanHubClient, TaskEvent } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';
import { startAnswerDroppingProxy } from './answer-dropping-proxy.ts';

const WAIT_S = 6;

/**
 * `after_event: '$'` means "what comes after the log's end when I call". A call sent again on another node (its first
 * node died, or its answer was lost) used to send '$' again, which that node read as its own end of the log at the
 * retry: an event committed in between was never delivered (the long-poll waited its whole timeout and answered a
 * cursor already past the event; the subscription started after it). The SDK now fixes where '$' stands before the
 * call goes out, and every attempt sends that position.
 */
describe("a call with after_event '$' sent again on another node", () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** Two nodes on one store; the watcher reaches node 1 through a proxy that can lose its answers. */
  const twoNodes = async () => {
    const redisPrefix = uniquePrefix();
    const nodes: Harness[] = [
      await startHarness('redis', { redisPrefix }),
      await startHarness('redis', { redisPrefix }),
    ];
    for (const n of nodes) cleanups.push(() => n.close());
    const proxy = await startAnswerDroppingProxy(nodes[0]!.url);
    cleanups.push(proxy.close);
    const watcher: PlanHubClient = await connect({
      url: [proxy.url, nodes[1]!.url],
      workspace: 'ws',
      agentId: 'watcher',
      backoff: { baseMs: 50, maxMs: 100 },
    });
    cleanups.push(() => watcher.close());
    const sub = await nodes[1]!.client('sub');
    return { proxy, watcher, sub };
  };

  it('a long-poll getTaskEvents still answers the event committed while its answer was lost', async () => {
    const { proxy, watcher, sub } = await twoNodes();
    const started = Date.now();
    const poll = watcher.getTaskEvents({
      agent_id: 'sub',
      event_types: ['plan_created'],
      after_event: '$',
      timeout: WAIT_S,
    });
    // The wait is on node 1 (any read that fixes '$' answered first); node 1 now loses what it says.
    await new Promise((resolve) => setTimeout(resolve, 500));
    proxy.drop();
    const { plan_id } = await sub.createPlan({ title: 'during the reconnect', steps: ['s'] });
    proxy.cut();
    const answer = await poll;
    expect(answer.events.map((e) => e.source_plan_id)).toEqual([plan_id]);
    // Answered when the retry found the event, not at the end of a fresh wait.
    expect(Date.now() - started).toBeLessThan(WAIT_S * 1000);
  });

  it("a model's long-poll through execute() means the same", async () => {
    const { proxy, watcher, sub } = await twoNodes();
    const args = { agent_id: 'sub', event_types: ['plan_created'], after_event: '$', timeout: WAIT_S };
    const poll = watcher.execute('getTaskEvents', JSON.stringify(args));
    await new Promise((resolve) => setTimeout(resolve, 500));
    proxy.drop();
    const { plan_id } = await sub.createPlan({ title: 'during the reconnect', steps: ['s'] });
    proxy.cut();
    expect(JSON.stringify(await poll)).toContain(plan_id);
  });

  it('a subscribeToTasks whose answer was lost still delivers the event committed meanwhile', async () => {
    const { proxy, watcher, sub } = await twoNodes();
    const seen: TaskEvent[] = [];
    watcher.on('event', (e) => seen.push(e));
    // The node stores the subscription and answers; the answer never arrives.
    proxy.drop('"subscription_id"');
    const subscribed = watcher.subscribeToTasks({
      agent_id: 'sub',
      event_types: ['plan_created'],
      after_event: '$',
    });
    await eventually(() => expect(proxy.dropping()).toBe(true));
    const { plan_id } = await sub.createPlan({ title: 'while the answer was lost', steps: ['s'] });
    proxy.cut();
    await subscribed;
    await eventually(() => expect(seen.map((e) => e.source_plan_id)).toEqual([plan_id]), { timeout: 5_000 });
  });
});
