import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { captureLog } from './support/capture-log.ts';
import { serverFixture } from './support/server-fixture.ts';

interface Answer {
  status: number;
  body: string;
}

/** One engine.io polling request by hand, with exactly the headers a browser (or an attacker) would send. */
const polling = (url: string, query: string, headers: Record<string, string> = {}, body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(`${url}/socket.io/?EIO=4&transport=polling${query}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'text/plain;charset=UTF-8' }) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });

const refusal = (answer: Answer) => {
  expect(answer.status).toBe(403);
  return (JSON.parse(answer.body) as { ok: false; error: { code: string; message: string } }).error;
};

/** A polling session opened the way an SDK opens one (no Origin): its id. */
const openSession = async (url: string): Promise<string> => {
  const answer = await polling(url, '');
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body.slice(1)) as { sid: string }).sid;
};

/**
 * The origin policy holds for every HTTP long-polling request, not only the one that carries the socket's CONNECT: a
 * page of another origin opened a JSONP session with a <script> (which sends no Origin), read its id, connected
 * through it and approved a plan; no-cors fetches (no Origin either) held sessions until the address's cap locked
 * every local client out.
 */
describe('polling requests under the origin policy', () => {
  const { node } = serverFixture();

  it('refuses JSONP polling, with or without an Origin', async () => {
    const url = await node();
    const sent: Record<string, string>[] = [{}, { origin: 'https://evil.example' }];
    for (const headers of sent) {
      const error = refusal(await polling(url, '&j=0', headers));
      expect(error.code).toBe('PERMISSION_DENIED');
      expect(error.message).toMatch(/^JSONP polling is not served/);
    }
  });

  it("refuses a request a browser marks as another site's, even when it leaves out its Origin", async () => {
    const url = await node();
    for (const site of ['cross-site', 'same-site']) {
      const error = refusal(await polling(url, '', { 'sec-fetch-site': site }));
      expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: /^A page of another site may not reach/ });
    }
    // The node's own pages, a typed-in address, and clients without fetch metadata (SDKs, CLIs) still open sessions.
    const admitted: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}];
    for (const headers of admitted) expect((await polling(url, '', headers)).status).toBe(200);
  });

  it("refuses a foreign Origin on a session's later requests, not only on its first", async () => {
    const url = await node();
    const sid = await openSession(url);
    const connect = `40${JSON.stringify({ workspace: 'victim', agent_id: 'evil', role: 'user' })}`;
    const error = refusal(await polling(url, `&sid=${sid}`, { origin: 'https://evil.example' }, connect));
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: /^Pages from https:\/\/evil\.example/ });
    // The session's owner, sending no Origin, goes on using it.
    expect(await polling(url, `&sid=${sid}`, {}, connect)).toEqual({ status: 200, body: 'ok' });
  });

  it('logs refused requests of one kind at most once a second, counting the ones it left out', async () => {
    const capture = captureLog();
    const url = await node({}, { log: capture.log });
    for (let i = 0; i < 50; i++) refusal(await polling(url, '&j=0'));
    const lines = capture.lines.filter((l) => l.msg === 'polling request refused: origin');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    // 50 refusals in well under the seconds it would take to log them all at once a second.
    expect(lines.length).toBeLessThan(10);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    refusal(await polling(url, '&j=0'));
    const after = capture.lines.filter((l) => l.msg === 'polling request refused: origin');
    expect(after.at(-1)).toMatchObject({ unlogged_since: expect.any(Number) as unknown });
    expect(after.length + (after.at(-1)?.unlogged_since as number)).toBeGreaterThanOrEqual(50);
  });
});
