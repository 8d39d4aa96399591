/**
 * An SDK client in a process of its own, so a test can stop it with SIGSTOP: the whole client stops reading its
 * socket, as a stuck or swapped-out agent does. It subscribes to PLANHUB_TYPES in PLANHUB_WORKSPACE on PLANHUB_URL
 * and reports over the IPC channel what its application sees: each event's id, each connection state (with its
 * info) and each `error` event.
 */
import { connect, type EventType } from '@planhub/client-sdk';

export type SubscriberReport =
  | { kind: 'subscribed' }
  | { kind: 'event'; id: string }
  | { kind: 'state'; state: string; info: Record<string, unknown> }
  | { kind: 'error'; code: string; message: string; details?: unknown };

const report = (message: SubscriberReport) => process.send?.(message);
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const client = await connect({
  url: env('PLANHUB_URL'),
  workspace: env('PLANHUB_WORKSPACE'),
  agentId: env('PLANHUB_AGENT'),
  // A PlanHubError crosses the IPC channel as its fields.
  onState: (state, { error, ...rest }) =>
    report({
      kind: 'state',
      state,
      info: error ? { ...rest, error: { code: error.code, message: error.message, details: error.details } } : rest,
    }),
});
client.on('event', (event) => report({ kind: 'event', id: event.event_id }));
client.on('error', (err) => report({ kind: 'error', code: err.code, message: err.message, details: err.details }));
await client.subscribeToTasks({ event_types: env('PLANHUB_TYPES').split(',') as EventType[] });
report({ kind: 'subscribed' });
// Closing the channel (the test ends) ends the client.
process.on('disconnect', () => {
  client.close();
  process.exit(0);
});
