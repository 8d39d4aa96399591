// Matches one ANSI escape sequence (colours and styles from the todo box).
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/y;

/**
 * Cuts `line` to at most `width` visible characters, ending with "…" when cut. ANSI styles take no room and are
 * kept; a reset follows a cut so a style cannot leak into the next line.
 */
export const fitWidth = (line: string, width: number): string => {
  if (width < 1) return '';
  let visible = 0;
  let out = '';
  let styled = false;
  for (let i = 0; i < line.length;) {
    ANSI.lastIndex = i;
    const escape = ANSI.exec(line);
    if (escape) {
      out += escape[0];
      styled = true;
      i += escape[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i) ?? 0);
    if (visible === width - 1 && hasMoreVisible(line, i + char.length)) return `${out}…${styled ? '\x1b[0m' : ''}`;
    out += char;
    visible += 1;
    i += char.length;
  }
  return out;
};

const hasMoreVisible = (line: string, from: number): boolean => {
  for (let i = from; i < line.length;) {
    ANSI.lastIndex = i;
    const escape = ANSI.exec(line);
    if (!escape) return true;
    i += escape[0].length;
  }
  return false;
};

/** Every line of `text` fitted to `width` (undefined: left as is, e.g. output to a pipe). */
export const fitLines = (text: string, width: number | undefined): string =>
  width === undefined
    ? text
    : text
        .split('\n')
        .map((line) => fitWidth(line, width))
        .join('\n');
