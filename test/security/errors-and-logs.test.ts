import { createMemoryStore, mintToken } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { captureLog } from './support/capture-log.ts';
import { rawClient } from './support/raw-client.ts';
import { recordingStore } from './support/recording-store.ts';
import { serverFixture } from './support/server-fixture.ts';

const SECRET = 'errors-and-logs-secret-0123456789';

describe('what clients and logs see of failures and credentials', () => {
  const { node, join, connect } = serverFixture();

  it('answers a corrupt stored document with INTERNAL naming its key, never its content, and logs it at error', async () => {
    const capture = captureLog();
    const rec = recordingStore(createMemoryStore({ eventRetention: 100 }));
    const url = await node({}, { log: capture.log, store: rec.store });
    const agent = await join(url, 'ws', 'broken');
    const created = await agent.call('createPlan', { title: 'T', steps: ['a'] });
    if (!created.ok) throw new Error(created.error.message);
    const { plan_id } = created.result as { plan_id: string };
    // Corrupt the stored plan behind the server's back: the next read of it fails inside a handler.
    const planKey = Object.keys((await rec.snapshot('ws')).docs).find((k) => k.includes(plan_id));
    expect(planKey).toBeDefined();
    const commit = await rec.store.commit('ws', {
      reads: [],
      writes: [{ key: planKey as string, value: { steps: 'CORRUPT-SENTINEL' } }],
      events: [],
    });
    expect(commit.ok).toBe(true);

    const ack = await agent.call('getPlanStatus', { plan_id });
    // A corrupt document is named (an operator must repair it), without its content.
    expect(ack).toEqual({
      ok: false,
      error: {
        code: 'INTERNAL',
        message: expect.stringMatching(new RegExp(`^The stored document ${planKey as string} is corrupt`)) as string,
      },
    });
    const wire = JSON.stringify(ack);
    expect(wire).not.toMatch(/TypeError|CORRUPT-SENTINEL|\bat \w|\.ts:\d+/);
    const fault = capture.lines.find((l) => l.level === 50 && l.tool === 'getPlanStatus');
    expect(fault).toMatchObject({ code: 'INTERNAL', agent_id: 'broken', workspace: 'ws' });
    expect((fault?.err as { stack?: string }).stack).toMatch(/Error/);
    // A client mistake is not a server fault: info, not error.
    await agent.call('getPlanStatus', { plan_id: 'nope' });
    const mistake = capture.lines.find((l) => l.code === 'NOT_FOUND');
    expect(mistake?.level).toBe(30);
  });

  it('answers UNAVAILABLE without Redis text when the store is unreachable', async () => {
    const capture = captureLog();
    // Nothing listens on port 1: every Redis command fails.
    const url = await node({ redisUrl: 'redis://:hunter2-password@127.0.0.1:1' }, { log: capture.log });
    const agent = await join(url, 'ws', 'a');
    const ack = await agent.call('createPlan', { title: 'T', steps: ['a'] });
    expect(ack.ok ? 'ok' : ack.error.code).toBe('UNAVAILABLE');
    expect(JSON.stringify(ack)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:1\b|ioredis|MaxRetries|\bat \w/i);
    expect(capture.text()).not.toContain('hunter2-password');
  });

  it('never writes a token or the secret to the log, whether the handshake is accepted or refused', async () => {
    const capture = captureLog();
    const url = await node({ secret: SECRET }, { log: capture.log });
    const good = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a', role: 'agent' }, '1h');
    const forged = await mintToken(`${SECRET}-other`, { workspace: 'ws', agent_id: 'a', role: 'agent' }, '1h');
    const client = await connect(url, { token: good });
    expect((await client.call('listTools', {})).ok).toBe(true);
    await expect(rawClient(url, { token: forged })).rejects.toThrow(/signature/);
    await expect(rawClient(url, { token: 'x.y.z' })).rejects.toThrow(/malformed/);
    expect(capture.lines.some((l) => l.msg === 'handshake refused' && l.level === 30)).toBe(true);
    // The logger itself censors credential-shaped fields, wherever a module might put them.
    capture.log.info({ auth: { token: good }, token: forged, config: { secret: SECRET } }, 'careless line');
    const text = capture.text();
    for (const credential of [good, forged, SECRET, good.split('.')[2] as string])
      expect(text).not.toContain(credential);
    expect(text).toContain('careless line');
  });
});
