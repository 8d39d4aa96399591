import { describe, expect, it } from 'vitest';
import { refusalText } from '../src/dashboard/web/refusal.ts';

const NEEDS_TOKEN =
  'this server needs a sign-in token. Open the dashboard link you were given (…/dashboard#token=…), or ask ' +
  'whoever runs PlanHub for one.';

describe('what the dashboard says when its handshake is refused', () => {
  it('asks for the link when the refusal says a token is required, whatever the server’s words', () => {
    const refusal = { code: 'UNAUTHENTICATED' as const, message: 'Tokens only here.', token_required: true as const };
    expect(refusalText(refusal, refusal.message, false)).toBe(NEEDS_TOKEN);
  });

  it('shows the server’s own message when the field is absent, even if it says "secret mode"', () => {
    const message = 'This server is in secret mode: connect with auth: { token }';
    expect(refusalText({ code: 'UNAUTHENTICATED', message }, message, false)).toBe(message);
    // Open mode's refusal of a malformed name is what the person has to fix.
    const badName = 'Handshake auth must be { workspace?, agent_id, role? } in open mode: agent_id: too long';
    expect(refusalText({ code: 'UNAUTHENTICATED', message: badName }, badName, false)).toBe(badName);
  });

  it('says the link’s token was not accepted when the page sent one, and passes other codes through', () => {
    expect(refusalText({ code: 'UNAUTHENTICATED', message: 'Token expired' }, 'Token expired', true)).toMatch(
      /^this link’s sign-in token was not accepted/,
    );
    expect(refusalText({ code: 'PERMISSION_DENIED', token_required: true }, 'Origin not allowed', false)).toBe(
      'Origin not allowed',
    );
    expect(refusalText(undefined, 'xhr poll error', false)).toBe('xhr poll error');
  });
});
