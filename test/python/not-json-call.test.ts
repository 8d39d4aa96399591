import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
/** Debian's interpreter, where python3-socketio is installed (not whatever python3 comes first on PATH). */
const PYTHON = '/usr/bin/python3';

/**
 * python-socketio writes its frames with json.dumps, which writes NaN and Infinity unless told not to; such a call
 * used to close the connection unanswered, and sio.call waited out its timeout (10 s here). Prints one JSON line:
 * the answer (or the exception), how long it took, whether the connection dropped, and a second call's answer.
 */
const SCRIPT = `
import json, sys, time, socketio
sio = socketio.Client(reconnection=False)
dropped = []
sio.on('disconnect', lambda *a: dropped.append(True))
sio.connect(sys.argv[1], transports=['websocket'], auth={'workspace': 'ws', 'agent_id': 'py'})
t0 = time.monotonic()
try:
    answer = sio.call('call', {'tool': 'completeStepWithOutput',
                               'args': {'step_id': 'step_1', 'output': {'score': float('nan')}}}, timeout=10)
except Exception as err:
    answer = {'exception': type(err).__name__}
elapsed = time.monotonic() - t0
after = sio.call('call', {'tool': 'listTools', 'args': {}}, timeout=10) if not dropped else None
print(json.dumps({'answer': answer, 'seconds': elapsed, 'dropped': bool(dropped), 'after_ok': (after or {}).get('ok')}))
sio.disconnect()
`;

describe('a Python client that sends NaN', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('is answered INVALID_ARGUMENT at once, told of allow_nan=False, and keeps its connection', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const { stdout } = await run(PYTHON, ['-c', SCRIPT, h.url], { timeout: 30_000 });
    const seen = JSON.parse(stdout) as {
      answer: { ok?: boolean; error?: { code: string; message: string }; exception?: string };
      seconds: number;
      dropped: boolean;
      after_ok: boolean | null;
    };
    expect(seen.answer.exception).toBeUndefined();
    expect(seen.answer.ok).toBe(false);
    expect(seen.answer.error?.code).toBe('INVALID_ARGUMENT');
    expect(seen.answer.error?.message).toMatch(/^The call is not valid JSON \(.*NaN.*\)\. NaN, Infinity and -Infinity/);
    expect(seen.answer.error?.message).toContain('allow_nan=False');
    expect(seen.seconds).toBeLessThan(5);
    expect(seen.dropped).toBe(false);
    expect(seen.after_ok).toBe(true);
  });
});
