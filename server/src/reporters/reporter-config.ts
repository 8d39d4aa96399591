import { EventTypeSchema } from '@planhub/shared';
import { z } from 'zod';
import { isLocalHostname, isPrivateAddress } from './private-address.ts';

const count = (def: number, max: number) => z.number().int().positive().max(max).default(def);
const millis = (def: number) => z.number().int().min(0).max(600_000).default(def);

const Common = {
  /** Only these event types (default: all). */
  event_types: z.array(EventTypeSchema).min(1).optional(),
};

// Strict, like the rest of planhub.json: a misspelt key (`sekret_env`, `evnt_types`) would otherwise be dropped,
// and a webhook would go out unsigned, or for every event.
export const ConsoleReporterSchema = z
  .object({
    type: z.literal('console'),
    level: z.enum(['info', 'debug', 'warn']).default('info'),
    ...Common,
  })
  .strict();

export const FileReporterSchema = z
  .object({
    type: z.literal('file'),
    path: z.string().min(1),
    /** The file is rotated (path → path.1 → path.2 …) before it would grow past this. */
    max_bytes: count(10 * 1024 * 1024, 1024 ** 3),
    /** Rotated files kept. */
    max_files: count(5, 100),
    /** Lines waiting to be written; beyond it new events are dropped (and counted). */
    max_queue: count(10_000, 1_000_000),
    ...Common,
  })
  .strict();

export const WebhookReporterSchema = z
  .object({
    type: z.literal('webhook'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    /** HMAC-SHA256 key; the signature of the raw body goes in `signature_header` as `sha256=<hex>`. */
    secret: z.string().min(16, 'use at least 16 characters').optional(),
    signature_header: z.string().default('x-planhub-signature'),
    /** Events per POST (`{ "events": [...] }`), in log order. */
    batch_size: count(50, 1000),
    timeout_ms: millis(10_000),
    /** Attempts per batch (first try included) before it is dropped and counted as failed. */
    max_attempts: count(6, 100),
    backoff_ms: millis(500),
    max_backoff_ms: millis(30_000),
    /** Events waiting for delivery; when full the oldest are dropped (and counted). */
    max_queue: count(10_000, 1_000_000),
    /** Allow loopback, private and link-local targets (refused by default: SSRF). */
    allow_private: z.boolean().default(false),
    ...Common,
  })
  .strict()
  .superRefine((cfg, ctx) => {
    if (cfg.allow_private) return;
    const host = new URL(cfg.url).hostname;
    if (isLocalHostname(host) || isPrivateAddress(host))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `${host} is a loopback or private address; set "allow_private": true to send webhooks there`,
      });
  });

export const ReporterConfigSchema = z.discriminatedUnion('type', [
  ConsoleReporterSchema,
  FileReporterSchema,
  WebhookReporterSchema,
]);
export type ReporterConfig = z.infer<typeof ReporterConfigSchema>;
export type ConsoleReporterConfig = z.infer<typeof ConsoleReporterSchema>;
export type FileReporterConfig = z.infer<typeof FileReporterSchema>;
export type WebhookReporterConfig = z.infer<typeof WebhookReporterSchema>;
