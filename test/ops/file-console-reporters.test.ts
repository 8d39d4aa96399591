import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connect } from '@planhub/client-sdk';
import { createLogger, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';

const STEPS = Array.from({ length: 12 }, (_, i) => `Step number ${i + 1} with a description long enough to fill lines`);

describe('file and console reporters', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes every event as a JSON line, rotating the file before it passes max_bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-events-'));
    dirs.push(dir);
    const path = join(dir, 'logs', 'events.log');
    const h = await startHarness('memory', {
      approvalPolicy: 'auto',
      reporters: [{ type: 'file', path, max_bytes: 2_000, max_files: 50 }],
    });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Rotate', steps: STEPS });
    await agent.startPlan({});
    for (let i = 1; i <= STEPS.length; i++) await agent.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    const { events } = await agent.getTaskEvents({ limit: 100 });
    await h.close();

    const files = [path];
    for (let i = 1; existsSync(`${path}.${i}`); i++) files.unshift(`${path}.${i}`);
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) expect(statSync(file).size).toBeLessThanOrEqual(2_000);
    const lines = files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
    expect(lines.map((l) => (JSON.parse(l) as { event_id: string }).event_id)).toEqual(events.map((e) => e.event_id));
  });

  it('logs one pino line per event with the console reporter', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const server = createServer(
      { port: 0, approvalPolicy: 'auto', reporters: [{ type: 'console', level: 'info' }] },
      { log: createLogger('info', sink) },
    );
    const { url } = await server.listen();
    const agent = await connect({ url, workspace: 'ws', agentId: 'main' });
    await agent.createPlan({ title: 'Log me', steps: ['one'] });
    await agent.startPlan({});
    const { events } = await agent.getTaskEvents({ limit: 100 });
    agent.close();
    await server.close();
    const reported = lines.filter((l) => l.reporter === 'console');
    expect(reported.map((l) => (l.event as { event_id: string }).event_id)).toEqual(events.map((e) => e.event_id));
    expect(reported[0]).toMatchObject({ level: 30, msg: 'plan_created by main › "Log me"' });
  });
});
