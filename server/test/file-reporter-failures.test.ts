import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { EventEnvelope } from '@planhub/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../src/config-error.ts';
import { createLogger } from '../src/logger.ts';
import { fileReporter } from '../src/reporters/file-reporter.ts';
import { FileReporterSchema } from '../src/reporters/reporter-config.ts';

const event = (n: number) => ({ event_id: `${n}-0`, event_type: 'step_completed' }) as unknown as EventEnvelope;

/** A reporter on `path` with its error lines and outcome counts kept for the test. */
const reporterAt = (path: string) => {
  const errors: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      errors.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const outcomes = { delivered: 0, failed: 0, dropped: 0, retried: 0 };
  const reporter = fileReporter(FileReporterSchema.parse({ type: 'file', path, max_queue: 5 }), {
    log: createLogger('error', sink),
    metrics: { reporterOutcome: (_name, outcome, n = 1) => void (outcomes[outcome] += n) },
  });
  return { reporter, errors, outcomes };
};

/**
 * Lets real file-system work run, without letting (faked) timers fire, until `until` holds or `ms` of real time
 * passed: a bound in turns alone ran out before the thread pool's writes on a loaded machine.
 */
const settle = async (until: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!until() && Date.now() < end) await new Promise((resolve) => setImmediate(resolve));
};
/** Long enough for a write retried at once (the old behaviour) to have failed again many times. */
const QUIET_MS = 300;

describe('the file reporter when it cannot write', () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-file-reporter-'));
    dirs.push(dir);
    return dir;
  };

  it('refuses to start on a path whose folder cannot be made, naming the path and the setting', () => {
    const dir = tempDir();
    // A file where the folder should be: refused even for root, who may write anywhere else.
    writeFileSync(join(dir, 'logs'), 'not a folder');
    const path = join(dir, 'logs', 'events.jsonl');
    expect(() => reporterAt(path)).toThrow(ConfigError);
    expect(() => reporterAt(path)).toThrow(
      new RegExp(`^the file reporter cannot write ${path} \\(.*\\); make its folder writable .*reporters\\[\\]\\.path`),
    );
  });

  it('backs off while writes fail, keeps its queue bounded, and writes what waited once it can again', async () => {
    const dir = tempDir();
    const folder = join(dir, 'logs');
    const path = join(folder, 'events.jsonl');
    const { reporter, errors, outcomes } = reporterAt(path);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The folder goes, and a file takes its place: every write fails until the folder is back.
    rmSync(folder, { recursive: true });
    writeFileSync(folder, 'not a folder');

    reporter.report(event(1));
    await settle(() => outcomes.failed === 1);
    expect(outcomes.failed).toBe(1);
    // Before this change the failed write was retried at once, without end (54,000 error lines in 3 s).
    await settle(() => false, QUIET_MS);
    expect(outcomes.failed).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('could not write the event log file; retrying with backoff');

    for (let n = 2; n <= 9; n++) reporter.report(event(n));
    expect(outcomes.dropped).toBe(4);
    vi.advanceTimersByTime(500);
    await settle(() => outcomes.failed === 2);
    expect(outcomes.failed).toBe(2);
    await settle(() => false, QUIET_MS);
    expect(outcomes.failed).toBe(2);

    rmSync(folder);
    mkdirSync(folder);
    vi.advanceTimersByTime(1_000);
    await settle(() => outcomes.delivered === 5);
    expect(outcomes.delivered).toBe(5);
    await reporter.close();
    expect(existsSync(path)).toBe(true);
    const ids = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { event_id: string }).event_id);
    expect(ids).toEqual(['1-0', '2-0', '3-0', '4-0', '5-0']);
  });
});
