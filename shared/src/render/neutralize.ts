/**
 * Characters that change how the text AROUND them is shown rather than being shown themselves: bidi embeddings,
 * overrides and isolates (U+202A–202E, U+2066–2069), the implicit marks (U+200E, U+200F, U+061C), and C0/C1 control
 * characters (terminal escapes, backspace, carriage return); and the invisible ones that join nothing a script needs
 * (zero-width space U+200B, word joiner U+2060, U+FEFF), which make two texts that read the same compare different
 * ("approve" and "appr\u200bove"). U+200C and U+200D stay: scripts and emoji sequences need them. An agent can write
 * them into a plan title or an approval message so that a person reads something other than what was stored
 * ("approve" shown for "evorppa").
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]/gu;

const visible = (c: string): string => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;

/**
 * Text as it may be shown to a person: every character above is replaced by a visible `[U+XXXX]` (so the reader
 * sees that something was there), tabs and newlines are kept, CRLF becomes LF, and the line and paragraph
 * separators become newlines. Idempotent: neutralised text passes through unchanged.
 */
export const neutralize = (text: string): string =>
  text
    .replace(/\r\n/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(UNSAFE, visible);
