import type { TaskEvent, WorkspaceSnapshot } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import { describe, expect, it, vi } from 'vitest';
import type { Connection } from '../src/dashboard/web/connection.ts';
import { DashboardState } from '../src/dashboard/web/state.ts';
import { createStoreRestart } from '../src/dashboard/web/store-restart.ts';
import { createSync } from '../src/dashboard/web/sync.ts';

const event = (id: string, plan: string): TaskEvent => ({
  event_id: id,
  event_type: 'step_completed',
  timestamp: 't',
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: plan,
  source_plan_title: plan,
  source_step_id: 'step_1',
  source_step_description: 'x',
  source_step_sequence: 1,
  payload: { result: null, error: null },
});

const overview = (plan: string, last: string | null) =>
  ({
    workspace: 'ws',
    agents: [{ agent_id: 'a', online: true, plans: [{ plan_id: plan, status: 'in_progress', steps: [] }] }],
    tasks: [],
    last_event_id: last,
  }) as unknown as WorkspaceSnapshot;

const NEW_LOG = ['2000-0', '2000-1', '2000-2'].map((id) => event(id, 'P_new'));

/**
 * A page that held the old log's events reconnects to a node whose store restarted, and whose new log already holds
 * three events; `firstHistoryRead` is what becomes of the first read of the new log's latest events.
 */
const reconnectAfterRestart = (firstHistoryRead: (sync: ReturnType<typeof createSync>) => void) => {
  const state = new DashboardState({ workspace: 'ws', agentId: 'board', role: 'dashboard' });
  state.model.reset(overview('P_old', '1000-2'));
  for (const id of ['1000-0', '1000-1', '1000-2']) state.addToFeed(event(id, 'P_old'));
  let historyReads = 0;
  const holder: { sync?: ReturnType<typeof createSync> } = {};
  // The dashboard's own call interface, answered as the restarted node answers (this is the page's logic alone).
  const connection = {
    close: () => undefined,
    call: (tool: string, args: Record<string, unknown>) =>
      Promise.resolve().then(() => {
        if (tool === 'getWorkspace') return overview('P_new', '2000-2');
        if (tool === 'getTaskEvents' && args.before_event !== undefined) return { events: [] };
        if (tool === 'getTaskEvents') {
          historyReads += 1;
          if (historyReads === 1) firstHistoryRead(holder.sync!);
          return { events: NEW_LOG };
        }
        return {};
      }),
  } as unknown as Connection;
  const restart = createStoreRestart({ state, forgetPlans: () => undefined, changed: () => undefined });
  const sync = (holder.sync = createSync({
    state,
    connection: () => connection,
    pages: { onEvent: () => undefined, reloadShown: () => undefined, restarted: () => undefined } as never,
    schedule: () => undefined,
    fail: () => undefined,
    onRoute: () => undefined,
    lose: () => undefined,
    checkStore: () => undefined,
    restart,
  }));
  sync.connected();
  const newEventsShown = () =>
    NEW_LOG.every((e) => state.feed.some((f) => f.event_id === e.event_id && !state.beforeBreak(f)));
  return { state, newEventsShown };
};

describe("the dashboard's catch-up after its node's store restarted", () => {
  it('reads the new log again when its first read of it failed', async () => {
    const { state, newEventsShown } = reconnectAfterRestart(() => {
      throw new PlanHubError('DEADLINE_EXCEEDED', 'the call took too long');
    });
    await vi.waitFor(() => expect(newEventsShown()).toBe(true), { timeout: 15_000, interval: 50 });
    expect(state.breaks).toHaveLength(1);
    expect(state.historyOwed).toBe(false);
  }, 20_000);

  it('reads the new log on the next connection when the first read was overtaken by a reconnect', async () => {
    const { state, newEventsShown } = reconnectAfterRestart((sync) => {
      sync.dropped();
      sync.connected();
    });
    await vi.waitFor(() => expect(newEventsShown()).toBe(true), { timeout: 15_000, interval: 50 });
    expect(state.breaks).toHaveLength(1);
  }, 20_000);
});
