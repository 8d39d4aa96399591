import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

// Starting real server processes (tsx) takes seconds each on a loaded machine.
const PROCESS_TEST_MS = 120_000;

/** Seed 000's todo.json, byte for byte as the seed prints it. */
const SEED_TODO_JSON = `{
  "reporter_type": "console",
  "storage_type": "file",
  "storage_path": ".jaato/plans.json"
}
`;

describe("seed 000's todo.json as written", () => {
  const cwd = mkdtempSync(join(tmpdir(), 'planhub-todo-json-'));
  writeFileSync(join(cwd, 'todo.json'), SEED_TODO_JSON);
  let node: ServerProcess | undefined;
  const clients: PlanHubClient[] = [];
  const client = async (server: ServerProcess) => {
    const c = await connect({ url: server.url, agentId: 'planner', workspace: 'seed' });
    clients.push(c);
    return c;
  };
  afterAll(async () => {
    for (const c of clients) c.close();
    await node?.stop('SIGTERM');
    rmSync(cwd, { recursive: true, force: true });
  });

  it(
    'starts the durable file store at storage_path, and plans, events and retries survive a restart',
    async () => {
      node = await startServerProcess({
        cwd,
        env: { PLANHUB_CONFIG: 'todo.json', PLANHUB_APPROVAL_POLICY: 'auto', REDIS_URL: '' },
      });
      const server = node;
      const first = await client(server);
      const args = { title: 'Refactor auth module', steps: ['Review', 'Extract', 'Test'] };
      const created = await first.call('createPlan', args, { requestId: 'create-1' });
      await first.startPlan({});
      const done = await first.setStepStatus({ step_id: created.steps[0]!.step_id, status: 'completed' });
      expect(done.status).toBe('completed');
      const events = await first.getTaskEvents({ after_event: '0-0', limit: 50 });
      expect(statSync(join(cwd, '.jaato/plans.json')).isDirectory()).toBe(true);

      // A graceful restart: the lock is released, and the next node finds everything where it was.
      expect(await server.stop('SIGTERM')).toBe(0);
      expect(existsSync(join(cwd, '.jaato/plans.json/planhub.lock'))).toBe(false);
      await server.restart();
      const second = await client(server);
      const plan = await second.getPlanStatus({ plan_id: created.plan_id });
      expect(plan.title).toBe('Refactor auth module');
      expect(plan.steps.map((s) => s.status)).toEqual(['completed', 'pending', 'pending']);
      expect((await second.getTaskEvents({ after_event: '0-0', limit: 50 })).events).toEqual(events.events);
      // The retry of the first call, after the restart, is answered from the remembered answer: no second plan.
      const retried = await second.call('createPlan', args, { requestId: 'create-1' });
      expect(retried.plan_id).toBe(created.plan_id);
      const next = await second.setStepStatus({ step_id: created.steps[1]!.step_id, status: 'in_progress' });
      expect(next.status).toBe('in_progress');
    },
    PROCESS_TEST_MS,
  );
});
