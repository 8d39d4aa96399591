import { createHmac } from 'node:crypto';
import type { EventEnvelope } from '@planhub/shared';
import type { WebhookReporterConfig } from './reporter-config.ts';
import type { Reporter, ReporterDeps } from './reporter.ts';
import { RefusedTarget, postJson } from './webhook-post.ts';

/** How long close() keeps delivering what is queued (without further retries). */
const CLOSE_GRACE_MS = 2_000;

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

export const signBody = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * POSTs `{ "events": [...] }` batches in log order with the configured headers and an HMAC-SHA256 signature.
 * `report` only appends to a bounded queue (oldest dropped when full), so a slow or failing receiver never slows a
 * call; one delivery runs at a time, retried with exponential backoff and full jitter on network errors, timeouts,
 * 408, 429 and 5xx, and dropped (counted as failed) after max_attempts or on another 4xx.
 */
export const webhookReporter = (config: WebhookReporterConfig, deps: ReporterDeps, post = postJson): Reporter => {
  const log = deps.log.child({ module: 'reporter', reporter: 'webhook', url: new URL(config.url).origin });
  const url = new URL(config.url);
  const queue: EventEnvelope[] = [];
  let pumping: Promise<void> | undefined;
  let closing = false;
  let abandoned = false;
  let wake: (() => void) | undefined;
  let droppedSinceWarning = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const headersFor = (body: string, count: number): Record<string, string> => ({
    ...config.headers,
    'content-type': 'application/json',
    'user-agent': 'PlanHub-Webhook/1',
    'x-planhub-event-count': String(count),
    ...(config.secret !== undefined ? { [config.signature_header]: signBody(config.secret, body) } : {}),
  });

  const deliver = async (batch: EventEnvelope[]): Promise<void> => {
    const body = JSON.stringify({ events: batch });
    const options = {
      headers: headersFor(body, batch.length),
      timeoutMs: config.timeout_ms,
      allowPrivate: config.allow_private,
    };
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const status = await post(url, body, options);
        if (status >= 200 && status < 300) {
          deps.metrics.reporterOutcome('webhook', 'delivered', batch.length);
          return;
        }
        if (!retryable(status)) {
          deps.metrics.reporterOutcome('webhook', 'failed', batch.length);
          log.warn({ status, events: batch.length }, 'webhook receiver refused the events; not retrying');
          return;
        }
        reason = `status ${status}`;
      } catch (err) {
        if (err instanceof RefusedTarget) {
          deps.metrics.reporterOutcome('webhook', 'failed', batch.length);
          log.error({ reason: err.message }, 'webhook target refused (set allow_private to allow it)');
          return;
        }
        reason = err instanceof Error ? err.message : String(err);
      }
      if (attempt >= config.max_attempts || closing) {
        deps.metrics.reporterOutcome('webhook', 'failed', batch.length);
        log.warn({ reason, attempts: attempt, events: batch.length }, 'webhook delivery failed; events dropped');
        return;
      }
      deps.metrics.reporterOutcome('webhook', 'retried', batch.length);
      const ceiling = Math.min(config.max_backoff_ms, config.backoff_ms * 2 ** (attempt - 1));
      await pause(Math.random() * ceiling);
    }
  };

  const pump = async () => {
    // Start on the next microtask, so events reported together in one turn travel in one batch.
    await Promise.resolve();
    while (queue.length > 0 && !abandoned) await deliver(queue.splice(0, config.batch_size));
  };

  const kick = () => {
    pumping ??= pump().finally(() => {
      pumping = undefined;
      if (queue.length > 0 && !closing) kick();
    });
  };

  return {
    name: 'webhook',
    report(event) {
      if (closing) return;
      if (queue.length >= config.max_queue) {
        queue.shift();
        deps.metrics.reporterOutcome('webhook', 'dropped');
        if (droppedSinceWarning++ % 1000 === 0)
          log.warn({ max_queue: config.max_queue }, 'webhook queue full: dropping the oldest events');
      }
      queue.push(event);
      kick();
    },
    async close() {
      closing = true;
      wake?.();
      const deadline = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([pumping ?? Promise.resolve(), deadline]);
      abandoned = true;
      if (queue.length > 0) deps.metrics.reporterOutcome('webhook', 'dropped', queue.splice(0).length);
    },
  };
};
