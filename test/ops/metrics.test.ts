import { createMemoryStore, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { parsePrometheus, valueOf } from './prometheus-text.ts';
import { poll } from '../helpers/eventually.ts';

const scrape = async (url: string) => {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
};

describe('/metrics', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('serves Prometheus text whose call, latency, connection, event and unblock counters move', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const before = await scrape(h.url);
    expect(before.types.get('planhub_calls_total')).toBe('counter');
    expect(before.types.get('planhub_call_duration_seconds')).toBe('histogram');
    expect(before.types.get('planhub_connections')).toBe('gauge');
    expect(before.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(valueOf(before.samples, 'planhub_calls_total')).toBe(0);

    const sub = await h.client('implementer');
    const main = await h.client('main');
    await sub.createPlan({ title: 'Implement', steps: ['Write'] });
    await sub.startPlan({});
    await main.createPlan({ title: 'Coordinate', steps: ['Spawn'] });
    await main.startPlan({});
    await main.addDependentStep({
      description: 'Review',
      depends_on: [{ agent_id: 'implementer', step_id: 'step_1' }],
    });
    await sub.completeStepWithOutput({ step_id: 'step_1', output: { ok: true } });
    await expect(sub.setStepStatus({ step_id: 'step_9', status: 'completed' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const after = await scrape(h.url);
    expect(valueOf(after.samples, 'planhub_calls_total', { tool: 'createPlan', code: 'OK' })).toBe(2);
    expect(valueOf(after.samples, 'planhub_calls_total', { tool: 'setStepStatus', code: 'NOT_FOUND' })).toBe(1);
    expect(valueOf(after.samples, 'planhub_call_duration_seconds_count', { tool: 'createPlan' })).toBe(2);
    expect(valueOf(after.samples, 'planhub_call_duration_seconds_bucket', { tool: 'createPlan', le: '+Inf' })).toBe(2);
    expect(valueOf(after.samples, 'planhub_connections', { role: 'agent' })).toBe(2);
    expect(valueOf(after.samples, 'planhub_events_total', { type: 'plan_created' })).toBe(2);
    expect(valueOf(after.samples, 'planhub_unblocks_total', { kind: 'step' })).toBe(1);
    expect(valueOf(after.samples, 'planhub_events_per_second')).toBeGreaterThan(0);
    expect(valueOf(after.samples, 'planhub_store_errors_total')).toBe(0);

    sub.close();
    await poll(async () => valueOf((await scrape(h.url)).samples, 'planhub_connections', { role: 'agent' })).toBe(1);
  });

  it('labels calls to unknown tools as "unknown" so clients cannot create label series', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    for (const tool of ['no_such_tool_1', 'no_such_tool_2'])
      await expect(agent.call(tool as 'createPlan', {} as never)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const { samples } = await scrape(h.url);
    expect(valueOf(samples, 'planhub_calls_total', { tool: 'unknown', code: 'NOT_FOUND' })).toBe(2);
    expect(samples.some((s) => s.labels.tool?.startsWith('no_such_tool'))).toBe(false);
  });

  it('counts store failures and answers 503 on /readyz while the store is unreachable', async () => {
    const store = createMemoryStore({ eventRetention: 100 });
    const server = createServer({ port: 0, logLevel: 'silent' }, { store });
    const { url } = await server.listen();
    h = { server, url, client: () => Promise.reject(new Error('unused')), close: () => server.close() };
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await store.close();
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unavailable',
      reason: 'store_unreachable',
      message: 'The store is unreachable; calls answer UNAVAILABLE until it is back.',
    });
    expect(valueOf((await scrape(url)).samples, 'planhub_store_errors_total', { operation: 'ping' })).toBe(1);
  });
});
