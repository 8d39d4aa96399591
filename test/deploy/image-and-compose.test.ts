import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { execForm, parseDockerfile, type Stage } from './dockerfile.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');
const run = promisify(execFile);

const { stages } = parseDockerfile(read('Dockerfile'));
const final = stages.at(-1) as Stage;
const build = stages.find((s) => s.name === 'build') as Stage;
const all = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);
const last = (stage: Stage, op: string) => all(stage, op).at(-1);

interface ComposeService {
  image?: string;
  build?: string | { context: string };
  command?: string[] | string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }>;
}
interface ComposeNetwork {
  ipam?: { config?: { subnet?: string; ip_range?: string }[] };
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks?: Record<string, ComposeNetwork>;
};
const services = compose.services;
const nodes = Object.entries(services).filter(([, s]) => s.build !== undefined);

/** Whether a Docker engine answers here; without one the image is linted, not built. */
const dockerAnswers = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;

describe('the Dockerfile', () => {
  it('builds in one stage and runs from another', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build).toBeDefined();
    expect(final).not.toBe(build);
    expect(all(build, 'RUN').map((r) => r.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/pnpm --filter @planhub\/server build/)]),
    );
  });

  it('runs as a user other than root', () => {
    const user = last(final, 'USER')?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    // Nothing after USER switches back.
    const afterUser = final.instructions.slice(final.instructions.findIndex((i) => i.op === 'USER'));
    expect(afterUser.filter((i) => i.op === 'USER')).toHaveLength(1);
  });

  it('starts node itself as process 1 (exec form), on the built JavaScript', () => {
    expect(all(final, 'ENTRYPOINT')).toEqual([]);
    const cmd = execForm(last(final, 'CMD')?.args ?? '');
    expect(cmd, 'CMD must be exec form (a JSON array), so no shell sits between docker stop and node').toBeDefined();
    expect(cmd?.[0]).toBe('node');
    expect(cmd?.[1]).toMatch(/^dist\/.*\.js$/);
    expect(cmd?.join(' ')).not.toMatch(/tsx|sh -c|pnpm|npm/);
  });

  it('checks its health on /readyz', () => {
    const health = last(final, 'HEALTHCHECK')?.args ?? '';
    expect(health).toMatch(/--interval=\d+s/);
    const probe = execForm(health.slice(health.indexOf('CMD') + 3).trim());
    expect(probe?.[0]).toBe('node');
    expect(probe?.join(' ')).toContain('/readyz');
  });

  it('ships production dependencies only: the final stage copies the prod-only deploy output and installs nothing', () => {
    const deploy = all(build, 'RUN').find((r) => /\bdeploy\b/.test(r.args));
    expect(deploy?.args).toMatch(/--prod\b/);
    const out = deploy?.args.split(/\s+/).at(-1) as string;
    const copies = all(final, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      expect(copy.args, 'every COPY of the final stage comes from the build stage').toMatch(/^--from=build\s/);
      expect(copy.args.split(/\s+/)[1]?.startsWith(`${out}/`), copy.args).toBe(true);
    }
    expect(all(final, 'RUN').filter((r) => /\b(npm|pnpm|yarn)\b/.test(r.args))).toEqual([]);
    expect(final.instructions.map((i) => i.args).join('\n')).not.toMatch(/\btsx\b|\besbuild\b/);
    // What "prod" leaves out: the tools that would otherwise run the TypeScript at run time.
    const server = JSON.parse(read('server/package.json')) as {
      dependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    expect(Object.keys(server.dependencies)).not.toEqual(expect.arrayContaining(['tsx']));
    expect(Object.keys(server.dependencies)).not.toEqual(expect.arrayContaining(['esbuild']));
    expect(server.scripts['start:prod']).toBe('node dist/main.js');
  });

  it('keeps node_modules, build output and secrets out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git', '.env']));
  });

  it('builds when a Docker engine answers, and is linted only when none does', async ({ annotate }) => {
    if (!dockerAnswers()) {
      await annotate('no Docker engine answered `docker info`: the Dockerfile was linted only');
      expect(stages.length).toBeGreaterThanOrEqual(2);
      return;
    }
    await run('docker', ['build', '-t', 'planhub:test', ROOT], { maxBuffer: 64 * 1024 * 1024 });
    const { stdout } = await run('docker', ['image', 'inspect', 'planhub:test', '--format', '{{.Config.User}}']);
    expect(stdout.trim()).toBe(last(final, 'USER')?.args);
    const probe = await run('docker', [
      'run',
      '--rm',
      'planhub:test',
      'node',
      '-e',
      "for (const m of ['tsx', 'esbuild']) { try { require.resolve(m); console.log(m) } catch {} }",
    ]);
    expect(probe.stdout.trim()).toBe('');
  }, 600_000);
});

describe('docker-compose.yml', () => {
  it('runs Redis with AOF every second, noeviction and a healthcheck', () => {
    const redis = services.redis as ComposeService;
    const command = (redis.command as string[]).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--appendfsync everysec');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(redis.healthcheck?.test.join(' ')).toMatch(/redis-cli ping/);
  });

  it('runs two or more nodes from the image, healthy on /readyz, after Redis is healthy', () => {
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    for (const [name, node] of nodes) {
      expect(node.build, name).toBe('.');
      expect(node.command, `${name} runs the image's CMD, not a shell`).toBeUndefined();
      expect(node.healthcheck?.test.join(' '), name).toContain('/readyz');
      expect(node.depends_on?.redis, name).toEqual({ condition: 'service_healthy' });
      expect(node.environment?.REDIS_URL, name).toBe('redis://redis:6379');
      expect(node.environment?.PLANHUB_SECRET, name).toMatch(/^\$\{PLANHUB_SECRET:\?/);
    }
  });

  it('puts the official HAProxy image in front, with deploy/haproxy.cfg, once every node is healthy', () => {
    const lb = services.haproxy as ComposeService;
    expect(lb.image).toMatch(/^haproxy:\d/);
    expect(lb.volumes).toContain('./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    for (const [name] of nodes) expect(lb.depends_on?.[name], name).toEqual({ condition: 'service_healthy' });
    const cfg = read('deploy/haproxy.cfg');
    const referenced = [...cfg.matchAll(/^\s*server\s+\S+\s+"\$\{(PLANHUB_NODE_\w+)\}"/gm)].map((m) => m[1]);
    expect(referenced.length).toBe(nodes.length);
    expect(referenced.map((v) => lb.environment?.[v as string]).sort()).toEqual(nodes.map(([n]) => `${n}:4000`).sort());
  });

  it('pins HAProxy at the address the nodes trust, inside the subnet and outside the range Docker assigns', () => {
    // `${NAME:-default}`: the variable an operator sets, and what compose uses when they do not.
    const variable = (value: string | undefined) => /^\$\{(\w+):-([^}]+)\}$/.exec(value ?? '')?.slice(1) ?? [];
    const inside = (cidr: string, address: string) => {
      const [network = '', prefix] = cidr.split('/');
      const list = new BlockList();
      list.addSubnet(network, Number(prefix));
      return list.check(address);
    };
    const [lbName, lb = ''] = variable(services.haproxy?.networks?.default?.ipv4_address);
    expect(lbName).toBe('PLANHUB_LB_ADDRESS');
    for (const [name, node] of nodes)
      expect(variable(node.environment?.PLANHUB_TRUSTED_PROXIES), name).toEqual(['PLANHUB_LB_ADDRESS', lb]);
    const ipam = compose.networks?.default?.ipam?.config?.[0];
    const [subnetName, subnet = ''] = variable(ipam?.subnet);
    const [rangeName, range = ''] = variable(ipam?.ip_range);
    expect([subnetName, rangeName]).toEqual(['PLANHUB_SUBNET', 'PLANHUB_IP_RANGE']);
    expect(inside(subnet, lb), `${lb} in ${subnet}`).toBe(true);
    expect(inside(subnet, range.split('/')[0] ?? ''), `${range} in ${subnet}`).toBe(true);
    expect(inside(range, lb), `${lb} outside ${range}, so no other container is given it`).toBe(false);
  });

  it("leaves a config that Debian's haproxy accepts with compose's environment", async () => {
    const lb = services.haproxy as ComposeService;
    const { stderr, stdout } = await run('/usr/sbin/haproxy', ['-c', '-f', `${ROOT}deploy/haproxy.cfg`], {
      env: { ...process.env, ...lb.environment },
    });
    expect(`${stdout}${stderr}`).toMatch(/Configuration file is valid/);
  });
});
