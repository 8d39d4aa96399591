import type { EventEnvelope } from '@planhub/shared';
import type { ConsoleReporterConfig } from './reporter-config.ts';
import type { Reporter, ReporterDeps } from './reporter.ts';

const headline = (e: EventEnvelope): string =>
  [
    `${e.event_type} by ${e.source_agent}`,
    e.source_plan_title ? `"${e.source_plan_title}"` : undefined,
    e.source_step_id ? `${e.source_step_id}: ${e.source_step_description ?? ''}` : undefined,
  ]
    .filter(Boolean)
    .join(' › ');

/** Seed 000's console reporter: one structured pino line per event, through the node's own logger. */
export const consoleReporter = (config: ConsoleReporterConfig, deps: ReporterDeps): Reporter => {
  const log = deps.log.child({ module: 'reporter', reporter: 'console' });
  return {
    name: 'console',
    report(event) {
      log[config.level]({ event }, headline(event));
      deps.metrics.reporterOutcome('console', 'delivered');
    },
    close: () => Promise.resolve(),
  };
};
