import type { EventEnvelope } from '@planhub/shared';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

let processRegistry: Registry | undefined;

/** Process metrics (CPU, memory, event-loop lag) are collected once per process, however many nodes it runs. */
const processMetrics = (): Registry => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

const RATE_WINDOW_S = 60;

/**
 * One node's Prometheus metrics, in a registry of its own (tests run many nodes in one process). Events and
 * unblocks count what this node committed, so summing over nodes counts each event once.
 */
export const createMetrics = () => {
  const registry = new Registry();
  const calls = new Counter({
    name: 'planhub_calls_total',
    help: 'Tool calls answered, by tool and result code (OK or the error code).',
    labelNames: ['tool', 'code'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'planhub_call_duration_seconds',
    help: 'Time from receiving a call to its acknowledgement, by tool.',
    labelNames: ['tool'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const connections = new Gauge({
    name: 'planhub_connections',
    help: 'Open socket.io connections on this node, by role.',
    labelNames: ['role'] as const,
    registers: [registry],
  });
  const events = new Counter({
    name: 'planhub_events_total',
    help: 'Events committed by this node, by type (rate() gives events per second).',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  // Per-second buckets of the last minute, for people who read /metrics without a Prometheus in front. Pruned as
  // seconds are added, not only when scraped: a node nobody scrapes kept one entry per busy second (4 MB a day).
  const perSecond = new Map<number, number>();
  const prune = (now: number) => {
    for (const second of perSecond.keys()) if (second <= now - RATE_WINDOW_S) perSecond.delete(second);
  };
  new Gauge({
    name: 'planhub_events_per_second',
    help: `Events committed by this node per second, averaged over the last ${RATE_WINDOW_S} s.`,
    registers: [registry],
    collect() {
      prune(Math.floor(Date.now() / 1000));
      let sum = 0;
      for (const count of perSecond.values()) sum += count;
      this.set(sum / RATE_WINDOW_S);
    },
  });
  const unblocks = new Counter({
    name: 'planhub_unblocks_total',
    help: 'Steps and tasks unblocked by a dependency ending (step_unblocked, task_unblocked) on this node.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'planhub_store_errors_total',
    help: 'Store operations that failed (store unreachable or erroring), by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const conflicts = new Counter({
    name: 'planhub_store_conflicts_total',
    help: 'Commits refused by a version check and retried (write contention).',
    registers: [registry],
  });
  const reporter = new Counter({
    name: 'planhub_reporter_events_total',
    help: 'Events handled by reporters, by reporter and outcome (delivered, retried, dropped, failed).',
    labelNames: ['reporter', 'outcome'] as const,
    registers: [registry],
  });

  const slowConsumers = new Counter({
    name: 'planhub_slow_consumers_cut_total',
    help:
      'Connections cut because they stopped reading and their queue passed outboundBytes, or their address ' +
      'passed outboundBytesPerAddress and they held the most of it.',
    registers: [registry],
  });
  let outboundPeak = 0;
  new Gauge({
    name: 'planhub_outbound_peak_bytes',
    help: 'The most bytes ever queued for one connection of this node (bounded by outboundBytes plus one event).',
    registers: [registry],
    collect() {
      this.set(outboundPeak);
    },
  });

  let addressPeak = 0;
  new Gauge({
    name: 'planhub_outbound_address_peak_bytes',
    help:
      'The most bytes ever counted queued for the connections of one client address on this node (bounded by ' +
      'outboundBytesPerAddress plus one event).',
    registers: [registry],
    collect() {
      this.set(addressPeak);
    },
  });

  return {
    registry,
    outbound: {
      peak(bytes: number) {
        if (bytes > outboundPeak) outboundPeak = bytes;
      },
      addressPeak(bytes: number) {
        if (bytes > addressPeak) addressPeak = bytes;
      },
      cut() {
        slowConsumers.inc();
      },
    },
    observeCall(tool: string, code: string, seconds: number) {
      calls.inc({ tool, code });
      latency.observe({ tool }, seconds);
    },
    connection(role: string, delta: 1 | -1) {
      connections.inc({ role }, delta);
    },
    committed(list: readonly EventEnvelope[]) {
      const second = Math.floor(Date.now() / 1000);
      const count = perSecond.get(second);
      // A new second: at most the window's seconds to walk, once a second.
      if (count === undefined) prune(second);
      perSecond.set(second, (count ?? 0) + list.length);
      for (const event of list) {
        events.inc({ type: event.event_type });
        if (event.event_type === 'step_unblocked') unblocks.inc({ kind: 'step' });
        if (event.event_type === 'task_unblocked') unblocks.inc({ kind: 'task' });
      }
    },
    storeError(operation: string) {
      storeErrors.inc({ operation });
    },
    storeConflict() {
      conflicts.inc();
    },
    reporterOutcome(name: string, outcome: 'delivered' | 'retried' | 'dropped' | 'failed', n = 1) {
      reporter.inc({ reporter: name, outcome }, n);
    },
    /** The Prometheus text exposition of this node plus the process. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      const merged = Registry.merge([processMetrics(), registry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
};

export type Metrics = ReturnType<typeof createMetrics>;
