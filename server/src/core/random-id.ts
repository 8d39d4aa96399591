const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** An 8-character lowercase alphanumeric id (seed 004's plan id form). */
export const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
};
