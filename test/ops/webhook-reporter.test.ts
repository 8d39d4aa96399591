import { createHmac } from 'node:crypto';
import type { EventEnvelope } from '@planhub/client-sdk';
import { createServer, parseConfig, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';
import { connect } from '@planhub/client-sdk';
import { startReceiver } from './webhook-receiver.ts';
import { eventually } from '../helpers/eventually.ts';

const SECRET = 'webhook-secret-0123456789';

const webhook = (url: string, extra: Record<string, unknown> = {}) => ({
  type: 'webhook' as const,
  url,
  headers: { authorization: 'Bearer team-token', 'x-team': 'blue' },
  secret: SECRET,
  allow_private: true,
  backoff_ms: 10,
  ...extra,
});

const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

describe('webhook reporter', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('delivers every event in order, signed, with its headers, retrying after a failure, and never slows a call', async () => {
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(503)));
    const receiver = await startReceiver((n) => (n === 0 ? held : 200));
    cleanups.push(() => receiver.close());
    const h: Harness = await startHarness('memory', { approvalPolicy: 'auto', reporters: [webhook(receiver.url)] });
    cleanups.push(() => h.close());
    const agent = await h.client('main');

    await agent.createPlan({ title: 'Ship it', steps: ['Build', 'Test'] });
    await eventually(() => expect(receiver.requests).toBe(1));
    // The receiver holds its first answer; calls keep returning.
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'built' });
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'tested' });
    await agent.completePlan({ status: 'completed' });
    expect(receiver.deliveries).toEqual([]);

    release();
    const { events } = await agent.getTaskEvents({ limit: 100 });
    const ids = events.map((e) => e.event_id);
    await eventually(() => expect(receiver.acceptedIds()).toEqual(ids));

    const [failed, retried] = receiver.deliveries;
    expect(failed?.status).toBe(503);
    expect(retried?.body).toBe(failed?.body);
    for (const d of receiver.deliveries) {
      expect(d.headers['x-planhub-signature']).toBe(sign(d.body));
      expect(d.headers).toMatchObject({
        authorization: 'Bearer team-token',
        'x-team': 'blue',
        'content-type': 'application/json',
      });
    }
    const first = (JSON.parse(failed?.body ?? '{}') as { events: EventEnvelope[] }).events[0];
    expect(first).toMatchObject({ event_type: 'plan_created', workspace: 'ws', source_agent: 'main' });
  });

  it('reports each event once when several nodes share a Redis store', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const prefix = uniquePrefix();
    const nodes: PlanHubServer[] = [];
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const node = createServer({
        port: 0,
        logLevel: 'silent',
        approvalPolicy: 'auto',
        redisUrl: inject('redisUrl'),
        redisPrefix: prefix,
        reporters: [webhook(receiver.url)],
      });
      nodes.push(node);
      urls.push((await node.listen()).url);
    }
    const agents = await Promise.all(urls.map((url, i) => connect({ url, workspace: 'ws', agentId: `agent-${i}` })));
    await Promise.all(
      agents.map(async (agent) => {
        await agent.createPlan({ title: 'Parallel', steps: ['a', 'b'] });
        await agent.startPlan({});
        await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
      }),
    );
    const { events } = await agents[0]!.getTaskEvents({ limit: 100 });
    for (const agent of agents) agent.close();
    // close() delivers what each node still has queued.
    for (const node of nodes) await node.close();
    expect(events).toHaveLength(8);
    expect([...receiver.acceptedIds()].sort()).toEqual(events.map((e) => e.event_id).sort());
  });

  it('refuses loopback, private and link-local targets unless allow_private is set', () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]/hook',
    ])
      expect(() => parseConfig({ reporters: [{ type: 'webhook', url }] }), url).toThrow(/allow_private/);
    expect(
      parseConfig({ reporters: [{ type: 'webhook', url: 'http://127.0.0.1:9/x', allow_private: true }] }).reporters,
    ).toHaveLength(1);
    expect(
      parseConfig({ reporters: [{ type: 'webhook', url: 'https://hooks.example.com/planhub' }] }).reporters,
    ).toHaveLength(1);
  });
});
