import type { EventEnvelope } from '@planhub/shared';
import type { Logger } from 'pino';
import type { Metrics } from '../ops/metrics.ts';

/** A destination for this node's events. `report` must return at once: it runs next to the calls. */
export interface Reporter {
  readonly name: string;
  report(event: EventEnvelope): void;
  /** Delivers what it can within its own deadline, then stops. */
  close(): Promise<void>;
}

export interface ReporterDeps {
  log: Logger;
  metrics: Pick<Metrics, 'reporterOutcome'>;
}
