/** One figure over the repetitions of a run: the median is reported, the range shows how much it moved. */
export interface Figure {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export const figureOf = (samples: readonly number[]): Figure => {
  const finite = samples.filter((s) => Number.isFinite(s));
  return {
    median: median(finite),
    min: finite.length > 0 ? Math.min(...finite) : Number.NaN,
    max: finite.length > 0 ? Math.max(...finite) : Number.NaN,
    samples: [...samples],
  };
};

/**
 * Ratios are taken per repetition (numerator and denominator measured back to back in the same repetition, so
 * drift of the machine cancels) and then summarized like any other figure.
 */
export const ratioOf = (numerator: Figure, denominator: Figure): Figure => {
  const n = Math.min(numerator.samples.length, denominator.samples.length);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) ratios.push((numerator.samples[i] as number) / (denominator.samples[i] as number));
  return figureOf(ratios);
};
