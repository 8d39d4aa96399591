import { describe, expect, it } from 'vitest';
import { Manager } from 'socket.io-client';
import { mintToken } from '@planhub/server';
import { poll } from '../helpers/eventually.ts';
import { rawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

const SECRET = 'connect-spam-secret-0123456789-abcdef';

/**
 * A transport connection (engine.io over websocket) that sends `count` socket.io CONNECT packets once it opens: the
 * answers it got, one per CONNECT answered, and whether the node closed it.
 */
const spamConnects = (url: string, count: number, auth: object, last?: object) =>
  new Promise<{ answers: string[]; closed: boolean }>((resolve) => {
    const answers: string[] = [];
    let closed = false;
    const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
    const done = () => resolve({ answers, closed });
    manager.open((err) => {
      if (err) return done();
      const engine = manager.engine;
      // Engine "message" packets carry socket.io's: "0…" is a CONNECT, "4…" a CONNECT_ERROR, "0{sid}" its success.
      engine.on('message', (data: unknown) => void answers.push(String(data)));
      engine.on('close', () => {
        closed = true;
        done();
      });
      for (let i = 0; i < count; i++) engine.write(`0${JSON.stringify(auth)}`);
      // Sent once the refusals are out, so it is answered after them.
      if (last) setTimeout(() => engine.write(`0${JSON.stringify(last)}`), 500);
      // Long enough for every answer; a node that keeps the connection open is seen as such.
      setTimeout(() => {
        engine.close();
        done();
      }, 1500);
    });
  });

/**
 * The per-address socket cap counts transport connections, not CONNECT packets: socket.io leaves a connection open
 * when a later step refuses its CONNECT, so one connection sending 1,000 forged CONNECTs used to fill its address's
 * cap, and every client from that address (a valid token included) was refused until it closed.
 */
describe('CONNECT packets repeated on one transport connection', () => {
  const { node } = serverFixture({ secret: SECRET });

  it('hold one slot of the address cap, and close the connection past a few', async () => {
    const url = await node({ limits: { connectionsPerAddress: 3 } });
    const spam = await spamConnects(url, 20, { token: 'not-a-token' });
    // Closed at the ninth, before the refusals of the first eight (their tokens are checked asynchronously) went out.
    expect(spam.closed).toBe(true);
    expect(spam.answers.length).toBeLessThanOrEqual(9);
    expect(spam.answers.every((a) => a.startsWith('4'))).toBe(true);

    // Meanwhile and after, a client with a valid token from the same address connects.
    const [held] = await Promise.all([
      spamConnects(url, 3, { token: 'not-a-token' }),
      (async () => {
        const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'legit', role: 'agent' }, '1h');
        const legit = await rawClient(url, { token });
        expect(await legit.call('getWorkspace', {})).toMatchObject({ ok: true });
        legit.close();
      })(),
    ]);
    expect(held.answers).toHaveLength(3);
  });

  it('admit one socket per slot, however many CONNECTs a transport sends with a valid token', async () => {
    const url = await node({ limits: { connectionsPerAddress: 1 } });
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'multi', role: 'agent' }, '1h');
    const spam = await spamConnects(url, 6, { token });
    expect(spam.answers.filter((a) => a.startsWith('0'))).toHaveLength(1);
    expect(spam.answers.filter((a) => a.includes('Too many connections'))).toHaveLength(5);
  });

  it('give the slots of refused CONNECTs back while their transport stays open', async () => {
    const url = await node({ limits: { connectionsPerAddress: 2 } });
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'after', role: 'agent' }, '1h');
    // Three refused for their token and then a valid one, all on one open transport: the valid one takes a slot
    // freed by the refusals, and a second client from the address still finds the other.
    const held = await spamConnects(url, 3, { token: 'not-a-token' }, { token });
    expect(held.answers.filter((a) => a.startsWith('0'))).toHaveLength(1);
    const second = await rawClient(url, { token });
    expect(await second.call('getWorkspace', {})).toMatchObject({ ok: true });
    second.close();
  });

  it('take no slot for a CONNECT whose transport closed before the handshake steps ran', async () => {
    const url = await node({ limits: { connectionsPerAddress: 3 } });
    // A CONNECT and an EVENT in one polling request: socket.io closes the transport for the EVENT (no socket of that
    // namespace yet) before the handshake steps run, a microtask later. Each such pair kept a slot for good, so an
    // address was locked out of the socket door after connectionsPerAddress of them, bad token or not.
    // Three pairs: the transports stay counted while they close (the engine's cap is twice the sockets'), the
    // sockets' slots must not.
    for (let i = 0; i < 3; i++) {
      const open = await (await fetch(`${url}/socket.io/?EIO=4&transport=polling`)).text();
      const { sid } = JSON.parse(open.slice(1)) as { sid: string };
      const body = `40${JSON.stringify({ token: 'not-a-token' })}\x1e42["call",{"tool":"listTools"}]`;
      const post = await fetch(`${url}/socket.io/?EIO=4&transport=polling&sid=${sid}`, { method: 'POST', body });
      expect(post.status).toBe(200);
    }
    // The same pair over websocket, written back to back: read in one turn, it leaked in most tries.
    for (let i = 0; i < 6; i++) {
      const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
      await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
      const closed = new Promise<void>((resolve) => manager.engine.on('close', () => resolve()));
      manager.engine.write(`0${JSON.stringify({ token: 'not-a-token' })}`);
      manager.engine.write('2["call",{"tool":"listTools"}]');
      await closed;
    }
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'after-leaks', role: 'agent' }, '1h');
    const clients = await Promise.all([rawClient(url, { token }), rawClient(url, { token })]);
    for (const client of clients) expect(await client.call('getWorkspace', {})).toMatchObject({ ok: true });
    for (const client of clients) client.close();
  });

  it('give back no slot for a CONNECT to a namespace the node does not have', async () => {
    const url = await node({ limits: { connectionsPerAddress: 1 } });
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'main-ns', role: 'agent' }, '1h');
    const other = await mintToken(SECRET, { workspace: 'ws', agent_id: 'second', role: 'agent' }, '1h');
    const turns = (k: number) =>
      new Promise<void>((resolve) => {
        const go = (n: number): unknown => (n <= 0 ? resolve() : setImmediate(() => go(n - 1)));
        go(k);
      });
    // The unknown namespace's refusal (sent at once, no step runs) lands while the "/" CONNECT waits on its token
    // check, at one of these gaps: it used to give back that CONNECT's slot, and a second client got in past the cap.
    for (const gap of [0, 1, 2, 3, 4, 6]) {
      const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
      await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
      const answers: string[] = [];
      manager.engine.on('message', (data: unknown) => void answers.push(String(data)));
      manager.engine.write(`0${JSON.stringify({ token })}`);
      await turns(gap);
      manager.engine.write('0/admin,');
      await poll(() => answers.some((a) => a.startsWith('0{'))).toBe(true);
      const second = await rawClient(url, { token: other }).then(
        (client) => (client.close(), 'connected'),
        () => 'refused',
      );
      expect(second, `gap ${gap}`).toBe('refused');
      manager.engine.close();
      await poll(async () =>
        rawClient(url, { token: other }).then(
          (c) => (c.close(), true),
          () => false,
        ),
      ).toBe(true);
    }
  });
});
