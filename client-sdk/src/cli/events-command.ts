import type { EventType } from '@planhub/shared';
import { EVENT_TYPES, EventTypeSchema } from '@planhub/shared';
import type { PlanHubClient } from '../connect.ts';
import type { CliOptions } from './options.ts';
import { untilInterrupted } from './until-interrupted.ts';

const typesOf = (option: string | undefined): EventType[] | undefined => {
  if (option === undefined) return undefined;
  return option.split(',').map((t) => {
    const parsed = EventTypeSchema.safeParse(t.trim());
    if (!parsed.success) throw new Error(`Unknown event type "${t.trim()}". Event types: ${EVENT_TYPES.join(', ')}.`);
    return parsed.data;
  });
};

/**
 * `planhub events`: the workspace's recent events, one JSON object per line (newest last). With --follow it keeps
 * printing new events as they happen, like `tail -f`, and resumes without gaps after a reconnect.
 */
export const eventsCommand = async (client: PlanHubClient, options: CliOptions): Promise<string> => {
  const types = typesOf(options.type);
  const limit = options.limit === undefined ? 20 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error('--limit takes a number from 1 to 500.');
  const filter = {
    ...(options.agent !== undefined ? { agent_id: options.agent } : {}),
    ...(types ? { event_types: types } : {}),
  };
  const recent = await client.getTaskEvents({
    ...filter,
    limit,
    ...(options.after !== undefined ? { after_event: options.after } : {}),
  });
  for (const event of recent.events) process.stdout.write(`${JSON.stringify(event)}\n`);
  if (!options.follow) return '';
  const off = client.on('event', (event) => process.stdout.write(`${JSON.stringify(event)}\n`));
  const { subscription_id } = await client.subscribeToTasks({
    agent_id: options.agent ?? '*',
    event_types: types ?? [...EVENT_TYPES],
    // The cursor of the read above: nothing that matched since is missed, nothing printed comes twice.
    after_event: recent.last_event_id ?? options.after ?? '0-0',
  });
  await untilInterrupted();
  off();
  await client.unsubscribe({ subscription_id }).catch(() => undefined);
  return '';
};
