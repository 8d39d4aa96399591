import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const tsx = `${root}node_modules/.bin/tsx`;
const OUTPUT = { facts: ['one parent', 'one subagent', 'one output'] };

/** The environment without PLANHUB_URL and PLANHUB_WORKSPACE: the example finds the node from its argument alone. */
const env = () => {
  const { PLANHUB_URL: _url, PLANHUB_WORKSPACE: _workspace, ...rest } = process.env;
  return rest;
};

/** examples/fan-in.mjs run the way its header and the README say, against `url`. */
const runExample = (url: string) =>
  run(tsx, ['--tsconfig', 'examples/tsconfig.json', 'examples/fan-in.mjs', url], { cwd: root, env: env() });

/** The subagent id and the outputs the parent printed on its step_unblocked line. */
const received = (stdout: string) => {
  const line = /^parent-\w+: step_2 unblocked, received (.+)$/m.exec(stdout);
  if (!line) throw new Error(`no step_unblocked line in:\n${stdout}`);
  return JSON.parse(line[1] ?? '') as Record<string, unknown>;
};

describe('the fan-in example (examples/fan-in.mjs)', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it("unblocks the parent's step with the subagent's output on a node with default settings", async () => {
    h = await startHarness('memory');
    const { stdout, stderr } = await runExample(h.url);
    expect(stderr).toBe('');
    const parent = /^(parent-\w+): plan \w+ approved by alice$/m.exec(stdout)?.[1];
    const subagent = /^(researcher-\w+): step_1 completed$/m.exec(stdout)?.[1];
    expect(parent).toBeDefined();
    expect(subagent).toBeDefined();
    expect(received(stdout)).toEqual({ [`${subagent}:step_1`]: OUTPUT });

    // Both plans waited for a person (the default policy) and a user client approved them.
    const dashboard = await h.client('watcher', { workspace: 'default', role: 'dashboard' });
    const { events } = await dashboard.getTaskEvents({ event_types: ['plan_approved'], after_event: '0-0' });
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ agent_id: parent, approved_by: 'alice' }),
      expect.objectContaining({ agent_id: subagent, approved_by: 'alice' }),
    ]);
  });

  it("runs again on the same node and unblocks on the new subagent's step, not the finished one", async () => {
    h = await startHarness('memory');
    const first = received((await runExample(h.url)).stdout);
    const second = received((await runExample(h.url)).stdout);
    expect(Object.keys(second)).toHaveLength(1);
    expect(Object.keys(second)).not.toEqual(Object.keys(first));
    expect(Object.values(second)).toEqual([OUTPUT]);
  });

  it('starts at once, without a person, on a node with the auto approval policy', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const { stdout, stderr } = await runExample(h.url);
    expect(stderr).toBe('');
    expect(Object.values(received(stdout))).toEqual([OUTPUT]);
  });
});
