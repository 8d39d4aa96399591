import { afterEach, describe, expect, it, vi } from 'vitest';
import { monitorStore } from '../../server/src/ops/store-monitor.ts';
import { captureLog } from '../security/support/capture-log.ts';

describe('the store monitor', () => {
  afterEach(() => void vi.useRealTimers());

  it('logs an outage once when it starts, a summary per period while it lasts, and once when it ends', async () => {
    vi.useFakeTimers();
    const capture = captureLog();
    let reachable = false;
    const ping = vi.fn(() => (reachable ? Promise.resolve() : Promise.reject(new Error('ECONNREFUSED'))));
    const monitor = monitorStore({
      ping,
      log: capture.log,
      name: 'Redis at redis://r:6379',
      intervalMs: 1000,
      summaryMs: 10_000,
    });
    monitor.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(monitor.health()).toMatchObject({ reachable: false });
    // 35 s down: 36 checks, one startup line and three summaries.
    await vi.advanceTimersByTimeAsync(35_000);
    expect(ping.mock.calls.length).toBeGreaterThanOrEqual(36);
    const messages = () => capture.lines.map((l) => l.msg);
    expect(messages()).toEqual([
      expect.stringMatching(/^Redis at redis:\/\/r:6379 is unreachable at startup: calls answer UNAVAILABLE/),
      'Redis at redis://r:6379 still unreachable after 10 s',
      'Redis at redis://r:6379 still unreachable after 20 s',
      'Redis at redis://r:6379 still unreachable after 30 s',
    ]);
    reachable = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(messages().at(-1)).toMatch(/^Redis at redis:\/\/r:6379 is reachable again after 3\d s; the node is ready$/);
    expect(monitor.health()).toEqual({ reachable: true });
    reachable = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(messages().at(-1)).toMatch(/^Redis at redis:\/\/r:6379 is unreachable: calls answer UNAVAILABLE/);
    monitor.stop();
    const calls = ping.mock.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ping.mock.calls.length).toBe(calls);
  });

  it('does not call the node ready when the store came back without its data', async () => {
    vi.useFakeTimers();
    const capture = captureLog();
    let reachable = false;
    const monitor = monitorStore({
      ping: () => (reachable ? Promise.resolve() : Promise.reject(new Error('ECONNREFUSED'))),
      log: capture.log,
      name: 'Redis at redis://r:6379',
      intervalMs: 1000,
      stillUnready: () => 'it came back without the data it had',
    });
    monitor.start();
    await vi.advanceTimersByTimeAsync(4_000);
    reachable = true;
    await vi.advanceTimersByTimeAsync(1000);
    const last = capture.lines.at(-1);
    expect(last?.msg).toMatch(
      /^Redis at redis:\/\/r:6379 is reachable again after \d s, but the node stays unready: it came back without the data it had$/,
    );
    expect(last?.level).toBe(50);
    monitor.stop();
  });

  it('says nothing while the store stays reachable', async () => {
    vi.useFakeTimers();
    const capture = captureLog();
    const monitor = monitorStore({ ping: () => Promise.resolve(), log: capture.log, name: 'Redis', intervalMs: 1000 });
    monitor.start();
    await vi.advanceTimersByTimeAsync(60_000);
    monitor.stop();
    expect(capture.lines).toEqual([]);
  });
});
