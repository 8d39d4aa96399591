import type { EventEnvelope } from '@planhub/shared';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { WebhookReporterSchema } from '../src/reporters/reporter-config.ts';
import { webhookReporter } from '../src/reporters/webhook-reporter.ts';

/** vi.waitFor's default of 1 s is short on a loaded CI machine; it still returns as soon as the check holds. */
const PATIENCE = { timeout: 15_000 };

const event = (n: number): EventEnvelope => ({
  event_id: `1-${n}`,
  event_type: 'step_started',
  timestamp: '2026-01-01T00:00:00.000Z',
  workspace: 'ws',
  source_agent: 'a',
  source_plan_id: 'p',
  source_plan_title: 't',
  source_step_id: 'step_1',
  source_step_description: 'd',
  source_step_sequence: 1,
  payload: {},
});

const setup = (answer: (attempt: number) => Promise<number>, extra: Record<string, unknown> = {}) => {
  const outcomes: Record<string, number> = {};
  const bodies: string[] = [];
  const config = WebhookReporterSchema.parse({
    type: 'webhook',
    url: 'https://hooks.example.com/x',
    backoff_ms: 1,
    max_attempts: 3,
    batch_size: 2,
    ...extra,
  });
  const reporter = webhookReporter(
    config,
    {
      log: pino({ level: 'silent' }),
      metrics: { reporterOutcome: (_name, outcome, n = 1) => void (outcomes[outcome] = (outcomes[outcome] ?? 0) + n) },
    },
    (_url, body) => {
      bodies.push(body);
      return answer(bodies.length);
    },
  );
  const ids = () => bodies.map((b) => (JSON.parse(b) as { events: EventEnvelope[] }).events.map((e) => e.event_id));
  return { reporter, outcomes, ids };
};

describe('webhook delivery queue', () => {
  it('retries 5xx and network errors with backoff, then gives up after max_attempts', async () => {
    const { reporter, outcomes, ids } = setup((n) =>
      n === 2 ? Promise.reject(new Error('ECONNRESET')) : Promise.resolve(500),
    );
    reporter.report(event(1));
    await vi.waitFor(() => expect(outcomes.failed).toBe(1), PATIENCE);
    expect(ids()).toEqual([['1-1'], ['1-1'], ['1-1']]);
    expect(outcomes.retried).toBe(2);
  });

  it('does not retry a 4xx other than 408 and 429', async () => {
    const { reporter, outcomes, ids } = setup(() => Promise.resolve(400));
    reporter.report(event(1));
    await vi.waitFor(() => expect(outcomes.failed).toBe(1), PATIENCE);
    expect(ids()).toHaveLength(1);
  });

  it('keeps at most max_queue events waiting, dropping the oldest, and batches in order', async () => {
    let open!: () => void;
    const gate = new Promise<number>((resolve) => (open = () => resolve(200)));
    const { reporter, outcomes, ids } = setup((n) => (n === 1 ? gate : Promise.resolve(200)), { max_queue: 3 });
    reporter.report(event(1));
    reporter.report(event(2));
    await vi.waitFor(() => expect(ids()).toHaveLength(1), PATIENCE);
    for (let n = 3; n <= 6; n++) reporter.report(event(n));
    // 1–2 are in flight; of 3–6 the queue keeps the newest three.
    expect(outcomes.dropped).toBe(1);
    open();
    await vi.waitFor(() => expect(outcomes.delivered).toBe(5), PATIENCE);
    expect(ids()).toEqual([['1-1', '1-2'], ['1-4', '1-5'], ['1-6']]);
    await reporter.close();
  });
});
