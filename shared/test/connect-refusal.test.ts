import { describe, expect, it } from 'vitest';
import { ConnectRefusalSchema, tokenRequiredOf } from '../src/index.ts';

describe('a refused handshake’s token_required', () => {
  it('survives the contract’s parse, which drops fields it does not know', () => {
    const sent = { code: 'UNAUTHENTICATED', message: 'No token.', token_required: true, later_field: 1 };
    expect(ConnectRefusalSchema.parse(sent)).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'No token.',
      token_required: true,
    });
    // A flag: present and true, or absent.
    expect(ConnectRefusalSchema.safeParse({ ...sent, token_required: false }).success).toBe(false);
  });

  it('is read from a refusal’s data or an error’s details, and only when it is exactly true', () => {
    expect(tokenRequiredOf({ code: 'UNAUTHENTICATED', message: 'm', token_required: true })).toBe(true);
    expect(tokenRequiredOf({ token_required: true })).toBe(true);
    for (const data of [undefined, null, {}, { token_required: 'true' }, { token_required: 1 }, 'token_required'])
      expect(tokenRequiredOf(data), JSON.stringify(data)).toBe(false);
  });
});
