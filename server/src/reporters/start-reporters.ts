import type { EventEnvelope } from '@planhub/shared';
import { consoleReporter } from './console-reporter.ts';
import { fileReporter } from './file-reporter.ts';
import type { ReporterConfig } from './reporter-config.ts';
import type { Reporter, ReporterDeps } from './reporter.ts';
import { webhookReporter } from './webhook-reporter.ts';

const create = (config: ReporterConfig, deps: ReporterDeps): Reporter => {
  switch (config.type) {
    case 'console':
      return consoleReporter(config, deps);
    case 'file':
      return fileReporter(config, deps);
    case 'webhook':
      return webhookReporter(config, deps);
  }
};

/**
 * The node's reporters (seed 000's reporter_type, from planhub.json). They receive the events THIS node committed,
 * not every event the node hears about: each event is committed by exactly one node, so a fleet of N nodes reports
 * it once, not N times, with no coordination. Hand-off happens after the call's commit, on a later turn of the
 * event loop, so no reporter work sits on a call's path.
 */
export const startReporters = (configs: readonly ReporterConfig[], deps: ReporterDeps) => {
  const reporters = configs.map((config) => {
    const types = config.event_types ? new Set<string>(config.event_types) : undefined;
    return {
      reporter: create(config, deps),
      accepts: (e: EventEnvelope) => types === undefined || types.has(e.event_type),
    };
  });
  const pending: EventEnvelope[] = [];
  let scheduled = false;
  let closed = false;

  const flush = () => {
    scheduled = false;
    for (const event of pending.splice(0))
      for (const { reporter, accepts } of reporters) {
        if (!accepts(event)) continue;
        try {
          reporter.report(event);
        } catch (err) {
          deps.log.error({ err, reporter: reporter.name }, 'reporter failed');
        }
      }
  };

  return {
    count: reporters.length,
    committed(events: readonly EventEnvelope[]): void {
      if (reporters.length === 0 || closed) return;
      pending.push(...events);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      flush();
      await Promise.all(reporters.map(({ reporter }) => reporter.close()));
    },
  };
};

export type Reporters = ReturnType<typeof startReporters>;
