import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refusedStart } from './run-main.ts';

const dir = mkdtempSync(join(tmpdir(), 'planhub-operator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configFile = (json: unknown) => {
  const path = join(dir, `planhub-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(json));
  return path;
};

/** What every refusal shares: exit code 1, one plain line on stderr, nothing on stdout, no stack, no ZodError. */
const expectOperatorRefusal = (run: { code: number | null; stdout: string; stderr: string }, message: RegExp) => {
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(/^PlanHub cannot start: /);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at |ZodError|\.ts:\d+|"code":|"path":/);
};

describe('configuration errors name the variable and what is allowed, and exit 1 without a stack', () => {
  it.each([
    [{ PORT: 'abc' }, /PORT is "abc": allowed is a whole number from 0 to 65535/],
    [{ PORT: '99999' }, /PORT is "99999": allowed is a whole number from 0 to 65535/],
    [
      { PLANHUB_APPROVAL_POLICY: 'sometimes' },
      /PLANHUB_APPROVAL_POLICY is "sometimes": allowed is one of owner-or-user, user, auto/,
    ],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL is "loud": allowed is one of fatal, error, warn, info/],
    [
      { PLANHUB_EVENT_RETENTION: '-3' },
      /PLANHUB_EVENT_RETENTION is "-3": allowed is a whole number of events greater than 0/,
    ],
    [
      { REDIS_URL: 'http://cache:6379' },
      /REDIS_URL is "http:\/\/cache:6379": allowed is a redis:\/\/ or rediss:\/\/ URL/,
    ],
    [{ REDIS_URL: 'redis-host:6379' }, /REDIS_URL is "redis-host:6379": allowed is a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_PREFIX: 'a{b}' }, /REDIS_PREFIX is "a\{b\}": allowed is a non-empty key prefix without \{ or \}/],
    [
      { PLANHUB_LIMIT_CALLS_PER_MINUTE: '5' },
      /Unknown limit PLANHUB_LIMIT_CALLS_PER_MINUTE; the limits are .*PLANHUB_LIMIT_CALLS_PER_SECOND/,
    ],
    [
      { PLANHUB_LIMIT_STEPS_PER_PLAN: 'lots' },
      /PLANHUB_LIMIT_STEPS_PER_PLAN is "lots": allowed is a whole number greater than 0/,
    ],
  ])('refuses %j', async (env, message) => {
    expectOperatorRefusal(await refusedStart(env), message);
  });

  it('refuses a REDIS_URL with the wrong scheme without printing its password', async () => {
    const run = await refusedStart({ REDIS_URL: 'http://admin:hunter2-password@cache:6379' });
    expectOperatorRefusal(
      run,
      /REDIS_URL is "http:\/\/admin:\*\*\*@cache:6379\/": allowed is a redis:\/\/ or rediss:\/\//,
    );
    expect(run.stderr).not.toContain('hunter2');
  });

  it.each([
    ['too short', 'short-secret', /PLANHUB_SECRET is too weak: use at least 16 characters, not only whitespace/],
    ['sixteen spaces', ' '.repeat(16), /PLANHUB_SECRET is too weak: use at least 16 characters, not only whitespace/],
    ['one repeated character', 'a'.repeat(24), /PLANHUB_SECRET is too weak: it uses only 1 different characters/],
    ['two alternating characters', '12'.repeat(10), /PLANHUB_SECRET is too weak: it uses only 2 different characters/],
  ])('refuses a secret that is %s, without echoing it', async (_name, secret, message) => {
    const run = await refusedStart({ PLANHUB_SECRET: secret, HOST: '0.0.0.0' });
    expectOperatorRefusal(run, message);
    if (secret.trim() !== '') expect(run.stderr).not.toContain(secret);
  });

  it('refuses a weak PLANHUB_METRICS_TOKEN the same way', async () => {
    expectOperatorRefusal(
      await refusedStart({ PLANHUB_METRICS_TOKEN: 'x'.repeat(20) }),
      /PLANHUB_METRICS_TOKEN is too weak: it uses only 1 different characters/,
    );
  });

  it('names the config-file key, and the file, when the bad value comes from planhub.json', async () => {
    const path = configFile({ storage_type: 'redis', storage_config: { url: 'http://cache:6379' } });
    expectOperatorRefusal(
      await refusedStart({ PLANHUB_CONFIG: path }),
      new RegExp(`storage_config\\.url in ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is "http://cache:6379"`),
    );
  });

  it('checks the scheme of a webhook URL in planhub.json and names its key', async () => {
    const path = configFile({ reporter_type: 'webhook', reporter_config: { url: 'ftp://hooks.example.com/x' } });
    expectOperatorRefusal(
      await refusedStart({ PLANHUB_CONFIG: path }),
      /Invalid PlanHub config .*\.json: reporter_config\.url is "ftp:\/\/hooks\.example\.com\/x": must be an http\(s\) URL/,
    );
  });

  it('names a config file that does not exist or does not parse', async () => {
    expectOperatorRefusal(
      await refusedStart({ PLANHUB_CONFIG: join(dir, 'missing.json') }),
      /Invalid PlanHub config .*missing\.json: ENOENT/,
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    expectOperatorRefusal(await refusedStart({ PLANHUB_CONFIG: broken }), /Invalid PlanHub config .*broken\.json: /);
  });

  it('lists every problem at once, so an operator fixes them in one go', async () => {
    const run = await refusedStart({ PORT: 'abc', PLANHUB_APPROVAL_POLICY: 'never' });
    expectOperatorRefusal(run, /PORT is "abc".*PLANHUB_APPROVAL_POLICY is "never"/);
  });
});

describe('listening problems are one line naming PORT or HOST', () => {
  const holders: Server[] = [];
  afterAll(() => holders.forEach((s) => s.close()));

  it('says a port is in use, and which', async () => {
    const holder = createTcpServer();
    holders.push(holder);
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    expectOperatorRefusal(
      await refusedStart({ PORT: String(port) }),
      new RegExp(`Port ${port} is already in use on 127\\.0\\.0\\.1: .*set PORT to another port`),
    );
  });

  it('says when HOST is not an address of this machine', async () => {
    expectOperatorRefusal(
      await refusedStart({ HOST: '192.0.2.1', PLANHUB_SECRET: 'a-long-enough-secret-for-tests' }),
      /Cannot listen on 192\.0\.2\.1:0 \(HOST=192\.0\.2\.1, PORT=0\): 192\.0\.2\.1 is not an address of this machine/,
    );
  });

  it('refuses open mode beyond loopback in the same plain form', async () => {
    expectOperatorRefusal(
      await refusedStart({ HOST: '0.0.0.0' }),
      /Refusing to listen on 0\.0\.0\.0 in open mode.*PLANHUB_SECRET/,
    );
  });
});
