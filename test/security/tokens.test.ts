import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer, mintToken, verifyToken } from '@planhub/server';
import { SignJWT, UnsecuredJWT } from 'jose';
import { io } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = new URL('../../client-sdk/bin/planhub.mjs', import.meta.url).pathname;
const SECRET = 'test-secret-0123456789-abcdef';
const OTHER_SECRET = 'another-secret-0123456789-xyz';
const key = (secret: string) => new TextEncoder().encode(secret);
const nowS = () => Math.floor(Date.now() / 1000);

/** A token signed like the server's own, with whatever claims and header a test wants to get wrong. */
const forge = (claims: Record<string, unknown>, secret = SECRET, alg = 'HS256') =>
  new SignJWT(claims).setProtectedHeader({ alg }).sign(key(secret));

/** The raw socket.io handshake: resolves with the connect_error message, or 'connected'. */
const handshake = (url: string, auth: unknown) =>
  new Promise<string>((resolve) => {
    const socket = io(url, { transports: ['websocket'], reconnection: false, auth: auth as object, forceNew: true });
    socket.once('connect', () => {
      socket.disconnect();
      resolve('connected');
    });
    socket.once('connect_error', (err) => {
      socket.disconnect();
      resolve(err.message);
    });
  });

/** The raw socket.io handshake's refusal data (connect_error's `data`), or 'connected'. */
const refusalData = (url: string, auth: unknown) =>
  new Promise<unknown>((resolve) => {
    const socket = io(url, { transports: ['websocket'], reconnection: false, auth: auth as object, forceNew: true });
    socket.once('connect', () => {
      socket.disconnect();
      resolve('connected');
    });
    socket.once('connect_error', (err: Error & { data?: unknown }) => {
      socket.disconnect();
      resolve(err.data);
    });
  });

describe('token minting and verification', () => {
  it('round-trips the claims and rejects what is wrong with a reason', async () => {
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a1', role: 'user' }, '1h');
    await expect(verifyToken(SECRET, token)).resolves.toEqual({ workspace: 'ws', agent_id: 'a1', role: 'user' });
    await expect(verifyToken(OTHER_SECRET, token)).rejects.toThrow(/signature does not verify/);
    const past = new Date(Date.now() + 2 * 3600_000);
    await expect(verifyToken(SECRET, token, past)).rejects.toThrow(/Token expired at/);
    await expect(verifyToken(SECRET, 'not.a.jwt')).rejects.toThrow(/malformed/);
    await expect(verifyToken(SECRET, '')).rejects.toThrow(/malformed/);
    const noExp = await forge({ workspace: 'ws', agent_id: 'a1', role: 'agent' });
    await expect(verifyToken(SECRET, noExp)).rejects.toThrow(/no expiry/);
    const badRole = await forge({ workspace: 'ws', agent_id: 'a1', role: 'admin', exp: nowS() + 60 });
    await expect(verifyToken(SECRET, badRole)).rejects.toThrow(/claims are invalid: Invalid role/);
    const noAgent = await forge({ workspace: 'ws', role: 'agent', exp: nowS() + 60 });
    await expect(verifyToken(SECRET, noAgent)).rejects.toThrow(/claims are invalid: agent_id/);
    const badName = await forge({ workspace: 'w s', agent_id: 'a1', role: 'agent', exp: nowS() + 60 });
    await expect(verifyToken(SECRET, badName)).rejects.toThrow(/claims are invalid: workspace/);
    const hs512 = await forge({ workspace: 'ws', agent_id: 'a1', role: 'agent', exp: nowS() + 60 }, SECRET, 'HS512');
    await expect(verifyToken(SECRET, hs512)).rejects.toThrow(/algorithm is not allowed/);
    const unsigned = new UnsecuredJWT({ workspace: 'ws', agent_id: 'a1', role: 'user' }).setExpirationTime('1h');
    await expect(verifyToken(SECRET, unsigned.encode())).rejects.toThrow(/not allowed|malformed/);
    await expect(mintToken(SECRET, { workspace: 'ws', agent_id: 'a1', role: 'agent' }, '5 fortnights')).rejects.toThrow(
      /not understood/,
    );
  });
});

describe('secret mode handshake', () => {
  let server: PlanHubServer | undefined;
  afterEach(async () => server?.close());

  const start = async () => {
    const node = createServer({ port: 0, logLevel: 'silent', secret: SECRET, approvalPolicy: 'user' });
    server = node;
    return (await node.listen()).url;
  };

  it('refuses missing, expired, forged and malformed tokens with a reason, and nothing happens', async () => {
    const url = await start();
    const expired = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a1', role: 'agent' }, 1, nowS() - 3600);
    const forged = await mintToken(OTHER_SECRET, { workspace: 'ws', agent_id: 'a1', role: 'user' }, '1h');
    const wrongClaims = await forge({ workspace: 'ws', agent_id: 'a1', role: 'root', exp: nowS() + 60 });
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /secret mode: connect with auth: \{ token \}/],
      [{}, /secret mode/],
      // Open-mode credentials are not a way around the token.
      [{ workspace: 'ws', agent_id: 'a1', role: 'user' }, /secret mode/],
      [{ token: 42 }, /secret mode/],
      [{ token: 'x'.repeat(9000) }, /secret mode/],
      [{ token: expired }, /Token expired at/],
      [{ token: forged }, /signature does not verify/],
      [{ token: wrongClaims }, /claims are invalid: Invalid role/],
      [{ token: 'garbage' }, /malformed/],
    ];
    for (const [auth, reason] of cases) expect(await handshake(url, auth)).toMatch(reason);
    await expect(connect({ url, agentId: 'a1', workspace: 'ws', token: expired, retries: 0 })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/Token expired/) as unknown,
    });
    expect(await server?.services.store.readEvents('ws', { count: 100 })).toEqual([]);
  });

  it('marks the refusal token_required only when no token came, and the client keeps it on its error', async () => {
    const url = await start();
    const expired = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a1', role: 'agent' }, 1, nowS() - 3600);
    const needsToken = { code: 'UNAUTHENTICATED', message: expect.stringMatching(/secret mode/) as unknown };
    // No token at all: the user can be asked for one.
    for (const auth of [undefined, {}, { workspace: 'ws', agent_id: 'a1', role: 'user' }, { token: '' }])
      expect(await refusalData(url, auth), JSON.stringify(auth)).toEqual({ ...needsToken, token_required: true });
    // A token that is not one, or one refused: the user has to fix that one, not be asked for a token.
    for (const auth of [{ token: 42 }, { token: 'x'.repeat(9000) }, { token: 'garbage' }, { token: expired }]) {
      const data = await refusalData(url, auth);
      expect(data, JSON.stringify(auth).slice(0, 40)).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(data, JSON.stringify(auth).slice(0, 40)).not.toHaveProperty('token_required');
    }
    await expect(connect({ url, agentId: 'a1', workspace: 'ws', retries: 0 })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      details: { token_required: true },
    });
    const refused = await connect({ url, agentId: 'a1', token: expired, retries: 0 }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((refused as { details?: unknown }).details).toBeUndefined();
  });

  it('takes the identity from the token, whatever else the handshake claims', async () => {
    const url = await start();
    const agentToken = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a1', role: 'agent' }, '1h');
    const dashToken = await mintToken(SECRET, { workspace: 'ws', agent_id: 'wall', role: 'dashboard' }, '1h');
    const agent = await connect({ url, agentId: 'someone-else', workspace: 'other', role: 'user', token: agentToken });
    const dash = await connect({ url, agentId: 'x', role: 'user', token: dashToken });
    try {
      const plan = await agent.createPlan({ title: 'T', steps: ['s1'] });
      const seen = await dash.getPlanStatus({ agent_id: 'a1' });
      expect(seen).toMatchObject({ plan_id: plan.plan_id, agent_id: 'a1' });
      // The agent's own policy-"user" approval is refused: its token says agent, not user.
      void agent.startPlan({ wait: false });
      await expect.poll(async () => (await dash.getPlanStatus({ agent_id: 'a1' })).status).toBe('awaiting_approval');
      await expect(agent.plan_approve({})).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
      await expect(dash.plan_approve({ agent_id: 'a1' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    } finally {
      agent.close();
      dash.close();
    }
  });

  it('accepts a token minted by `planhub token` and acts as its claims', async () => {
    const url = await start();
    const mint = (args: string[]) =>
      run(process.execPath, [CLI, 'token', ...args], { env: { ...process.env, PLANHUB_SECRET: SECRET } });
    const { stdout: userToken } = await mint([
      '--workspace',
      'ws',
      '--agent',
      'alice',
      '--role',
      'user',
      '--ttl',
      '1h',
    ]);
    const { stdout: agentToken } = await mint(['-w', 'ws', '--agent', 'main', '--ttl', '10m']);
    await expect(verifyToken(SECRET, userToken.trim())).resolves.toEqual({
      workspace: 'ws',
      agent_id: 'alice',
      role: 'user',
    });
    const agent = await connect({ url, agentId: '', token: agentToken.trim() });
    const user = await connect({ url, agentId: '', token: userToken.trim() });
    try {
      const plan = await agent.createPlan({ title: 'CLI', steps: ['one'] });
      const starting = agent.startPlan({});
      await expect.poll(async () => (await user.getPlanStatus({ agent_id: 'main' })).status).toBe('awaiting_approval');
      await user.plan_approve({ agent_id: 'main' });
      await expect(starting).resolves.toMatchObject({ plan_id: plan.plan_id, status: 'in_progress' });
    } finally {
      agent.close();
      user.close();
    }
    await expect(mint(['--agent', 'main', '--role', 'root'])).rejects.toMatchObject({
      stderr: expect.stringMatching(/--role must be agent, user or dashboard/) as unknown,
    });
    await expect(
      run(process.execPath, [CLI, 'token', '--agent', 'main'], { env: { ...process.env, PLANHUB_SECRET: '' } }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/needs the server secret/) as unknown });
  });
});
