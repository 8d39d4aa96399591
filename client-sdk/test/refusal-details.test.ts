import { PlanHubError } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { forTheCommandLine } from '../src/cli/connection.ts';
import { attemptFailure } from '../src/refusal.ts';

/** A connect_error as socket.io-client hands it over for a refused handshake. */
const connectError = (data: unknown) =>
  Object.assign(new Error(String((data as { message?: unknown }).message)), { data });

const HINT =
  'This node is in secret mode: pass --token <jwt> (or PLANHUB_TOKEN); mint one with planhub token --agent <you> --role user.';

describe('a refused handshake’s data on the client', () => {
  it('keeps the fields beyond code and message as the details of the error that closes the client', () => {
    const failure = attemptFailure(
      connectError({ code: 'UNAUTHENTICATED', message: 'Give a token.', token_required: true }),
      true,
    );
    expect(failure).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'Give a token.',
      final: true,
      details: { token_required: true },
    });
    const limited = attemptFailure(
      connectError({ code: 'RESOURCE_EXHAUSTED', message: 'Too many.', retry_after_ms: 1000 }),
      true,
    );
    expect(limited).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: 'Too many.',
      final: false,
      details: { retry_after_ms: 1000 },
    });
    // Nothing to keep: no empty details on the error.
    expect(attemptFailure(connectError({ code: 'PERMISSION_DENIED', message: 'No.' }), true)).not.toHaveProperty(
      'details',
    );
  });
});

describe('the command line’s word for a node that wants a token', () => {
  it('decides by token_required, not by the words of the node’s message', () => {
    const reworded = new PlanHubError('UNAUTHENTICATED', 'Tokens only here.', { token_required: true });
    expect(forTheCommandLine(reworded, false)).toMatchObject({ code: 'UNAUTHENTICATED', message: HINT });
  });

  it('keeps the node’s message when it says "secret mode" without the field (a node older than the field)', () => {
    const wordsOnly = new PlanHubError(
      'UNAUTHENTICATED',
      'This server is in secret mode: connect with auth: { token }',
    );
    expect(forTheCommandLine(wordsOnly, false)).toBe(wordsOnly);
  });

  it('leaves the refusal alone when a token was passed, or when it is not UNAUTHENTICATED', () => {
    const flagged = new PlanHubError('UNAUTHENTICATED', 'Tokens only here.', { token_required: true });
    expect(forTheCommandLine(flagged, true)).toBe(flagged);
    const denied = new PlanHubError('PERMISSION_DENIED', 'Not from there.', { token_required: true });
    expect(forTheCommandLine(denied, false)).toBe(denied);
  });
});
