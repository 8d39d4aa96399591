/** 001 todo items of about 7 KB each: a list that fills a byte quota or bound in a few calls. */
export const paddedTodos = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    content: `${tag}${i}`,
    activeForm: `a${i}`,
    status: 'pending',
    pad: 'x'.repeat(7_000),
  }));
