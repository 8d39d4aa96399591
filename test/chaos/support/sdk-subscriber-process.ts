import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SubscriberReport } from './sdk-subscriber.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SUBSCRIBER = fileURLToPath(new URL('./sdk-subscriber.ts', import.meta.url));

/** The SDK in a process of its own (sdk-subscriber.ts), so SIGSTOP stops all its reading. */
export const sdkSubscriber = (env: { url: string; workspace: string; agent: string; types: string }) => {
  const child = spawn(process.execPath, ['--conditions=planhub-source', '--import', 'tsx', SUBSCRIBER], {
    cwd: ROOT,
    env: {
      ...process.env,
      PLANHUB_URL: env.url,
      PLANHUB_WORKSPACE: env.workspace,
      PLANHUB_AGENT: env.agent,
      PLANHUB_TYPES: env.types,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reports: SubscriberReport[] = [];
  child.on('message', (message: SubscriberReport) => reports.push(message));
  return {
    reports,
    events: () => reports.flatMap((r) => (r.kind === 'event' ? [r.id] : [])),
    states: () => reports.filter((r) => r.kind === 'state'),
    signal: (signal: NodeJS.Signals) => void child.kill(signal),
    stop() {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    },
  };
};
