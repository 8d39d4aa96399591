import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { callRaw, mcpClient } from '../mcp/mcp-clients.ts';
import { eventually } from '../helpers/eventually.ts';
import { storeFixture, type StoreFixture, type StoreFixtureKind } from '../helpers/stores.ts';

const KINDS: readonly StoreFixtureKind[] = ['memory', 'redis', 'redis-cluster', 'file'];
const RETENTION = 5;
const MISSING = /^after_event "[^"]+" is older than events this workspace's log no longer keeps \(trimmed through /;

/**
 * A reader resuming after an event the log has since trimmed (it keeps the newest PLANHUB_EVENT_RETENTION) used to
 * get the events kept as if nothing were missing: plans created meanwhile vanished from its view without a word.
 * Every way of resuming says so now, and a cursor still in the log, or one whose own event alone was trimmed, does
 * not.
 */
describe.each(KINDS)('resuming after trimmed events (%s store)', (kind) => {
  let fixture: StoreFixture | undefined;
  let server: PlanHubServer | undefined;
  let agent: PlanHubClient | undefined;
  afterEach(async () => {
    agent?.close();
    await server?.close();
    await fixture?.close();
  });

  it('tells getTaskEvents, subscribeToTasks and waitForEvents that events after the cursor are gone', async () => {
    fixture = storeFixture(kind);
    server = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto' },
      { store: fixture.open({ eventRetention: RETENTION }) },
    );
    const { url } = await server.listen();
    agent = await connect({ url, workspace: 'ws', agentId: 'writer' });
    await agent.createPlan({ title: 'First', steps: ['a'] });
    const [first] = (await agent.getTaskEvents({ after_event: '0-0', limit: 1 })).events;
    for (let i = 0; i < 2 * RETENTION; i++) await agent.createPlan({ title: `Next ${i}`, steps: ['a'] });

    const read = await agent.getTaskEvents({ after_event: first!.event_id, limit: 100 });
    expect(read.warning).toMatch(MISSING);
    expect(read.warning).toMatch(/events after it are missing: this read went on from the oldest event kept\./);
    expect(read.events.length).toBeLessThanOrEqual(RETENTION);
    const subscribed = await agent.subscribeToTasks({ event_types: ['plan_created'], after_event: first!.event_id });
    expect(subscribed.warning).toMatch(MISSING);
    expect(subscribed.warning).toMatch(/the history was replayed from the oldest event kept/);
    // A second filter on the running stream replays nothing, and its warning says so rather than claim a replay.
    const again = await agent.subscribeToTasks({ event_types: ['plan_started'], after_event: first!.event_id });
    expect(again).toMatchObject({ replayed: 0, history_after: first!.event_id });
    expect(again.warning).toMatch(/so nothing was replayed; getTaskEvents reads what the log kept after history_after/);

    const mcp = await mcpClient('http', url, { workspace: 'ws', agentId: 'mcp-reader' });
    try {
      await callRaw(mcp, 'subscribeToTasks', { event_types: ['plan_created'], after_event: '$' });
      const waited = await callRaw(mcp, 'waitForEvents', { after_event: first!.event_id, timeout: 0 });
      expect(JSON.stringify(waited.structuredContent)).toMatch(/is older than events this workspace's log no longer/);
    } finally {
      await mcp.close();
    }

    // A cursor the log still holds, and the newest trimmed event itself (a reader that saw everything up to it):
    // nothing after either is missing. Each is read afresh and checked at once, again if need be: any later commit
    // (one came, unasked, in a loaded run on Redis Cluster) trims this 5-event log further, and then the warning is
    // right to speak. A warning for the newest trimmed event itself fails every attempt.
    await eventually(async () => {
      const [oldest] = (await agent!.getTaskEvents({ after_event: '0-0', limit: 100 })).events;
      expect((await agent!.getTaskEvents({ after_event: oldest!.event_id, limit: 100 })).warning).toBeUndefined();
    });
    await eventually(async () => {
      const now = await agent!.getTaskEvents({ after_event: first!.event_id, limit: 100 });
      const through = /trimmed through (\S+) to/.exec(now.warning ?? '')?.[1];
      expect(through).toMatch(/^\d+-\d+$/);
      expect((await agent!.getTaskEvents({ after_event: through, limit: 100 })).warning).toBeUndefined();
    });
  });
});
