import { getEventListeners } from 'node:events';
import type { CallAck, Caller } from '@planhub/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trackAbortRegistrations, type AbortRegistrations } from '../../test/helpers/abort-registrations.ts';
import { createCallGate } from '../src/ops/call-gate.ts';
import { CallSignals } from '../src/ops/call-signals.ts';
import { linkSignals } from '../src/ops/linked-signal.ts';
import { createMetrics } from '../src/ops/metrics.ts';
import type { CallSite, Dispatch } from '../src/tools/dispatch.ts';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
const caller: Caller = { workspace: 'ws', agent_id: 'a', role: 'agent' };
const OK: CallAck = { ok: true, result: {} };
const call = { tool: 'getPlan', args: {} };

describe('linkSignals', () => {
  it('aborts with the first source to abort, with its reason, and takes its listeners off every source', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkSignals([a.signal, b.signal]);
    expect([listeners(a.signal), listeners(b.signal)]).toEqual([1, 1]);
    b.abort('gone');
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('gone');
    expect(listeners(a.signal)).toBe(0);
    a.abort('later');
    expect(link.signal.reason).toBe('gone');
  });

  it('leaves nothing on a source that outlives many links, once each is unlinked', () => {
    const session = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const request = new AbortController();
      const link = linkSignals([session.signal, request.signal]);
      link.unlink();
      link.unlink();
      expect(link.signal.aborted).toBe(false);
    }
    expect(listeners(session.signal)).toBe(0);
    const kept = linkSignals([session.signal]);
    session.abort();
    expect(kept.signal.aborted).toBe(true);
  });

  it('is aborted at once, listening on nothing, when a source already is', () => {
    const live = new AbortController();
    const done = new AbortController();
    done.abort('before');
    const link = linkSignals([live.signal, done.signal]);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('before');
    expect(listeners(live.signal)).toBe(0);
  });
});

describe('CallSignals', () => {
  it('hands the calls of one caller signal one signal, aborted with the caller', () => {
    const signals = new CallSignals();
    const connection = new AbortController();
    const first = signals.enter(connection.signal);
    const second = signals.enter(connection.signal);
    expect(second.signal).toBe(first.signal);
    expect(listeners(connection.signal)).toBe(1);
    signals.leave(first);
    signals.leave(second);
    expect(signals.enter(connection.signal).signal).toBe(first.signal);
    connection.abort('closed');
    expect(first.signal.aborted).toBe(true);
    expect(first.signal.reason).toBe('closed');
  });

  it('holds nothing for a caller once its calls end, whether or not the caller signal ever aborts', () => {
    const signals = new CallSignals();
    for (let i = 0; i < 1000; i++) signals.leave(signals.enter(new AbortController().signal));
    expect(signals.runningScopes).toBe(0);
  });

  it('aborts the running calls, and every call after, with the first reason', () => {
    const signals = new CallSignals();
    const idle = new AbortController();
    signals.leave(signals.enter(idle.signal));
    const running = signals.enter(new AbortController().signal);
    signals.abortAll('shutdown');
    signals.abortAll('loss');
    expect(running.signal.reason).toBe('shutdown');
    const later = signals.enter(idle.signal);
    expect(later.signal.aborted).toBe(true);
    expect(later.signal.reason).toBe('shutdown');
    expect(signals.enter(new AbortController().signal).signal.reason).toBe('shutdown');
  });
});

describe('the call gate', () => {
  let registrations: AbortRegistrations;
  beforeEach(() => {
    registrations = trackAbortRegistrations();
  });
  afterEach(() => registrations.restore());

  const gateOver = (dispatch: Dispatch) => createCallGate(dispatch, createMetrics());
  const site = (signal: AbortSignal): CallSite => ({ caller, signal });

  it('leaves no registration behind per connection or per call on signals that outlive them', async () => {
    const gate = gateOver(() => Promise.resolve(OK));
    const N = 500;
    // Socket connections: three calls each under the connection's signal, which aborts when it closes.
    for (let i = 0; i < N; i++) {
      const connection = new AbortController();
      for (let c = 0; c < 3; c++) await gate.dispatch(site(connection.signal), call);
      connection.abort();
    }
    // MCP calls: a signal per call, which never aborts (the request simply ends).
    for (let i = 0; i < N; i++) await gate.dispatch(site(new AbortController().signal), call);
    // Before: the gate's shutdown and data-loss signals each held one AbortSignal.any entry per connection and call.
    expect(registrations.heaviest().registrations).toBeLessThan(5);
  });

  it("ends a call's signal on its caller's abort, on shutdown and on data loss", async () => {
    const seen: AbortSignal[] = [];
    const release: (() => void)[] = [];
    const gate = gateOver(
      (s) =>
        new Promise<CallAck>((resolve) => {
          seen.push(s.signal);
          release.push(() => resolve(OK));
        }),
    );
    const connection = new AbortController();
    void gate.dispatch(site(connection.signal), call);
    void gate.dispatch(site(new AbortController().signal), call);
    expect(seen).toHaveLength(2);
    connection.abort();
    expect(seen.map((s) => s.aborted)).toEqual([true, false]);
    gate.noticeLoss();
    expect(seen.map((s) => s.aborted)).toEqual([true, true]);
    for (const r of release) r();

    const other = gateOver(
      (s) =>
        new Promise<CallAck>((resolve) => {
          seen.push(s.signal);
          s.signal.addEventListener('abort', () => resolve(OK), { once: true });
        }),
    );
    void other.dispatch(site(new AbortController().signal), call);
    const waiting = seen.at(-1);
    expect(waiting?.aborted).toBe(false);
    await expect(other.drain(1000)).resolves.toBe(true);
    expect(waiting?.aborted).toBe(true);
  });
});
