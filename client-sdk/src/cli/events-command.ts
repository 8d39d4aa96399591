import type { EventEnvelope, EventType } from '@planhub/shared';
import { EVENT_TYPES, EventTypeSchema } from '@planhub/shared';
import type { Command } from 'commander';
import { DEFAULT_RETRIES } from '../call-retry.ts';
import { closedByItself } from './closed-by-itself.ts';
import { readerIdOf, withClient, withConnection, withIdentity, type ConnectionFlags } from './connection.ts';
import { eventLine } from './event-line.ts';
import { refuseEmptyFlags } from './empty-flag.ts';
import { UsageError } from './exit-codes.ts';
import { unsubscribeBriefly } from './unsubscribe-briefly.ts';
import { untilInterrupted } from './until-interrupted.ts';

/** How long `--follow` lets its node be gone before it says so: a blip the client rides out is not news. */
const LOST_AFTER_MS = 2000;

type EventsFlags = ConnectionFlags & {
  follow: boolean;
  json: boolean;
  agent?: string;
  type?: string;
  after?: string;
  limit: string;
  as?: string;
};

const typesOf = (option: string | undefined): EventType[] | undefined => {
  if (option === undefined) return undefined;
  return option.split(',').map((t) => {
    const parsed = EventTypeSchema.safeParse(t.trim());
    if (!parsed.success)
      throw new UsageError(`Unknown event type "${t.trim()}". Event types: ${EVENT_TYPES.join(', ')}.`);
    return parsed.data;
  });
};

/** What an empty answer means, so that a quiet exit is not taken for a broken command. */
const nothingYet = (flags: EventsFlags): string => {
  const filtered = flags.agent !== undefined || flags.type !== undefined || flags.after !== undefined;
  const what = `No ${filtered ? 'matching ' : ''}events in workspace ${flags.workspace}`;
  return flags.follow ? `${what} yet; waiting for new ones.` : `${what}.`;
};

/**
 * `planhub events`: the workspace's recent events, one line each (newest last); `--json` prints each envelope as a
 * JSON line. With --follow it keeps printing new events as they happen, like `tail -f`, and resumes without gaps
 * after a reconnect, until interrupted or until the node refuses it for good (its token expired: exit 1).
 */
export const eventsCommand = (program: Command): Command =>
  withConnection(
    withIdentity(
      program
        .command('events')
        .description('recent events, one line each; --follow keeps printing new ones')
        .option('-f, --follow', 'keep printing new events until interrupted', false)
        .option('--json', 'print each event as one JSON object per line', false)
        .option('-a, --agent <id>', "only this agent's events")
        .option('--type <types>', 'only these event types (comma-separated)')
        .option('--after <event_id>', 'start after this event id')
        .option('--limit <n>', 'how many recent events (1-500)', '20'),
    ),
  ).action(async (flags: EventsFlags) => {
    refuseEmptyFlags({ '--agent': flags.agent, '--after': flags.after });
    const types = typesOf(flags.type);
    const agentId = readerIdOf(flags.as);
    const limit = Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new UsageError('--limit takes a number from 1 to 500.');
    const print = (event: EventEnvelope) =>
      process.stdout.write(`${flags.json ? JSON.stringify(event) : eventLine(event)}\n`);
    await withClient(
      flags,
      async (client) => {
        const closed = closedByItself(client);
        const filter = {
          ...(flags.agent !== undefined ? { agent_id: flags.agent } : {}),
          ...(types ? { event_types: types } : {}),
        };
        const recent = await client.getTaskEvents({
          ...filter,
          limit,
          ...(flags.after !== undefined ? { after_event: flags.after } : {}),
        });
        // The node's word that --after named no event of its log (a typo): the events start at the oldest kept one.
        if (recent.warning !== undefined) process.stderr.write(`planhub: warning: ${recent.warning}\n`);
        for (const event of recent.events) print(event);
        // On stderr: stdout holds only events, for whatever reads the pipe; JSON lines stay empty for a program.
        if (recent.events.length === 0 && !flags.json) process.stderr.write(`${nothingYet(flags)}\n`);
        if (!flags.follow) return;
        const off = client.on('event', print);
        // On stderr, as the other notes: a follower whose node is gone for more than a blip says so, and says when it
        // is back (the client's subscription resumes after the last event printed, so what came meanwhile follows).
        // A blip, or a refusal that ends the command at once (an expired token), adds no line.
        let lost = false;
        let lostTimer: ReturnType<typeof setTimeout> | undefined;
        const offState = client.on('state', (state) => {
          if (state === 'disconnected' && !lost && lostTimer === undefined) {
            lostTimer = setTimeout(() => {
              lost = true;
              process.stderr.write('planhub: lost the node; reconnecting…\n');
            }, LOST_AFTER_MS);
            lostTimer.unref();
          } else if (state === 'connected' || state === 'closed') {
            clearTimeout(lostTimer);
            lostTimer = undefined;
            if (state === 'connected' && lost)
              process.stderr.write('planhub: reconnected; the events since the last one printed follow.\n');
            lost = false;
          }
        });
        // Retried, unlike the command's other calls: a follower rides out a node that goes away, and one that went
        // between the read above and this call ended the command ("connection lost during the call", seen in CI).
        const { subscription_id } = await client.subscribeToTasks(
          {
            agent_id: flags.agent ?? '*',
            event_types: types ?? [...EVENT_TYPES],
            // The cursor of the read above: nothing that matched since is missed, nothing printed comes twice.
            after_event: recent.cursor ?? recent.last_event_id ?? flags.after ?? '0-0',
          },
          { retries: DEFAULT_RETRIES },
        );
        await untilInterrupted(closed);
        clearTimeout(lostTimer);
        offState();
        off();
        await unsubscribeBriefly(client, subscription_id);
      },
      agentId,
    );
  });
