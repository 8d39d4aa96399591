import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { bigEvent } from '../helpers/big-event.ts';
import { callJson, mcpClient } from './mcp-clients.ts';

const SESSIONS = 4;

/** Whether `value` is an event notification carrying the event `eventId`. */
const carries = (value: unknown, eventId: string) => {
  const message = value as { method?: string; params?: { data?: { event_id?: string } } } | null;
  return message?.method === 'notifications/message' && message.params?.data?.event_id === eventId;
};

/**
 * Each notification on a GET stream is measured against outboundBytes before it is queued. Measuring used to
 * serialize the whole notification once more per session: with N sessions watching a workspace, N extra copies of
 * every event.
 */
describe('event notifications to many MCP sessions', () => {
  let server: PlanHubServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
  });

  it('serialize each notification only for the SDK to write it, once per session', async () => {
    server = createServer({ port: 0, logLevel: 'silent' });
    const { url } = await server.listen();
    const seen: Array<Set<string>> = [];
    for (let n = 0; n < SESSIONS; n++) {
      const client = await mcpClient('http', url, { workspace: 'team', agentId: `watcher-${n}` });
      clients.push(client);
      const ids = new Set<string>();
      seen.push(ids);
      client.setNotificationHandler(LoggingMessageNotificationSchema, (m) => {
        const id = (m.params.data as { event_id?: string }).event_id;
        if (id !== undefined) ids.add(id);
      });
      await callJson(client, 'subscribeToTasks', { agent_id: '*', event_types: ['step_completed'] });
    }
    const commit = async (n: number) => {
      const outcome = await server!.services.store.commit('team', {
        reads: [],
        writes: [],
        events: [bigEvent(n, { workspace: 'team' })],
      });
      if (!outcome.ok || !outcome.events[0]) throw new Error('not committed');
      return outcome.events[0].event_id;
    };
    // Notifications go only to open GET streams: the first event shows every session's is open.
    const first = await commit(1);
    await poll(() => seen.every((ids) => ids.has(first))).toBe(true);

    const stringify = vi.spyOn(JSON, 'stringify');
    const second = await commit(2);
    await poll(() => seen.every((ids) => ids.has(second))).toBe(true);
    const notifications = stringify.mock.calls.filter(([value]) => carries(value, second));
    expect(notifications).toHaveLength(SESSIONS);
  });
});
