import { SECRET_MIN_LENGTH as MIN_LENGTH, SECRET_VARIETY as MIN_VARIETY, secretVariety } from '@planhub/shared';

/** The node's rule for its secret (shared/src/secret-rule.ts), checked before minting a token it could never accept. */

/** Why the node would refuse `secret` at startup, or undefined when it would accept it. */
export const secretProblem = (secret: string): string | undefined => {
  if (secret.length < MIN_LENGTH)
    return `The secret is shorter than ${MIN_LENGTH} characters; the server would refuse it.`;
  if (secret.trim() === '') return 'The secret is only whitespace; the server would refuse it.';
  const variety = secretVariety(secret);
  if (variety < MIN_VARIETY)
    return (
      `The secret uses only ${variety} different characters; the server would refuse it ` +
      `(it needs at least ${MIN_VARIETY}, e.g. the output of: openssl rand -base64 32).`
    );
  return undefined;
};
