/**
 * A strict reader of the Prometheus text exposition format (0.0.4): every line must be a comment (HELP/TYPE) or a
 * sample `name{label="value",...} number`, and every sample must belong to a family declared by a TYPE line.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

export const parsePrometheus = (text: string): { types: Map<string, string>; samples: Sample[] } => {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type?.[1] && type[2]) types.set(type[1], type[2]);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`not a HELP/TYPE comment: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match?.[1] || match[3] === undefined) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? '';
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let m = LABEL.exec(body); m; m = LABEL.exec(body)) {
      labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      consumed = LABEL.lastIndex;
    }
    if (consumed !== body.length) throw new Error(`bad labels in: ${line}`);
    // Values are Go floats: Prometheus reads them with ParseFloat, which takes NaN and ±Inf in any letter case.
    const raw = match[3].toLowerCase();
    const value =
      raw === 'nan' ? NaN : raw === '+inf' || raw === 'inf' ? Infinity : raw === '-inf' ? -Infinity : Number(raw);
    if (Number.isNaN(value) && raw !== 'nan') throw new Error(`bad value in: ${line}`);
    const family = match[1].replace(/_(bucket|sum|count|total|created)$/, '');
    if (!types.has(match[1]) && !types.has(family)) throw new Error(`sample without a TYPE: ${line}`);
    samples.push({ name: match[1], labels, value });
  }
  return { types, samples };
};

export const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
