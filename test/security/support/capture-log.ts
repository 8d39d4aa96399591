import { Writable } from 'node:stream';
import { createLogger } from '@planhub/server';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A root logger at debug whose lines the test can read, parsed and as written. */
export const captureLog = () => {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { log: createLogger('debug', stream), lines, text: () => raw.join('\n') };
};
