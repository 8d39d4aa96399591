import type { Histogram } from 'hdr-histogram-js';
import { build } from 'hdr-histogram-js';

/** Latencies are recorded in microseconds: 1 µs resolution, 3 significant digits, up to 10 minutes. */
export const newHistogram = (): Histogram =>
  build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });

export const recordMs = (histogram: Histogram, ms: number): void =>
  histogram.recordValue(Math.max(1, Math.round(ms * 1000)));

/** What the report shows of one run's latency distribution, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export const LATENCY_FIELDS = ['p50', 'p90', 'p99', 'p999', 'max'] as const;

const ms = (micros: number) => Math.round(micros) / 1000;

export const summarize = (histogram: Histogram): LatencySummary => ({
  count: histogram.totalCount,
  p50: ms(histogram.getValueAtPercentile(50)),
  p90: ms(histogram.getValueAtPercentile(90)),
  p99: ms(histogram.getValueAtPercentile(99)),
  p999: ms(histogram.getValueAtPercentile(99.9)),
  max: ms(histogram.maxValue),
});
