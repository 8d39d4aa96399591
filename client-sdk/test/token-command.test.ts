import { DEFAULT_TOKEN_MAX_LIFETIME_S } from '@planhub/shared';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../src/cli/exit-codes.ts';
import { mintCliToken } from '../src/cli/token-command.ts';

const flags = { agent: 'a', workspace: 'ws', role: 'agent', secret: 'a-secret-of-16-chars-or-more' };

describe('planhub token against the default token lifetime', () => {
  afterEach(() => vi.restoreAllMocks());

  const mint = async (ttl: number) => {
    const warnings: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => warnings.push(String(text)) > 0);
    const claims = decodeJwt(await mintCliToken({ ...flags, ttl: String(ttl) }));
    return { lifetime: (claims.exp ?? 0) - (claims.iat ?? 0), warnings };
  };

  it("mints a token as long as a node's default maximum without a warning", async () => {
    const { lifetime, warnings } = await mint(DEFAULT_TOKEN_MAX_LIFETIME_S);
    expect(lifetime).toBe(DEFAULT_TOKEN_MAX_LIFETIME_S);
    expect(warnings).toEqual([]);
  });

  it("warns, naming the default in days, about a token one second longer than a node's default maximum", async () => {
    const { lifetime, warnings } = await mint(DEFAULT_TOKEN_MAX_LIFETIME_S + 1);
    expect(lifetime).toBe(DEFAULT_TOKEN_MAX_LIFETIME_S + 1);
    expect(warnings).toEqual([
      expect.stringContaining(`longer than the ${DEFAULT_TOKEN_MAX_LIFETIME_S / 86_400} days`),
    ]);
  });
});

describe('planhub token with a secret the node refuses', () => {
  it('refuses, as a usage error, a secret long enough but of fewer than 8 different characters', async () => {
    const minting = mintCliToken({ ...flags, secret: 'abcdefg'.repeat(3), ttl: '1h' });
    await expect(minting).rejects.toBeInstanceOf(UsageError);
    await expect(minting).rejects.toThrow(/only 7 different characters/);
  });

  it('mints with a secret of exactly 8 different characters', async () => {
    expect(decodeJwt(await mintCliToken({ ...flags, secret: 'abcdefgh'.repeat(2), ttl: '1h' })).agent_id).toBe('a');
  });
});
