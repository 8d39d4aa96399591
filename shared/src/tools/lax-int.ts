import { z } from 'zod';

/**
 * A decimal integer as pydantic reads one in its default (lax) mode: an optional sign, digits (Python's `_` between
 * them), `.` and zeros after them, blanks around. Upstream tools written in Python declare `x: int` on a pydantic
 * model, so a model that sends "2" for 2 is served there and must be here.
 */
const DECIMAL_INT = /^\s*[+-]?\d+(?:_\d+)*(?:\.0*)?\s*$/;

/** `parseInt` of the text without its `_`, `.0…` and blanks (the pattern allows nothing else). */
const fromText = (text: string) => Number.parseInt(text.trim().replaceAll('_', ''), 10);

/**
 * An integer argument that also takes what pydantic's lax `int` takes: a string of a decimal integer and a boolean
 * (true is 1). Anything else, a fraction included, is refused as `z.number().int()` refuses it.
 */
const expected = (issue: { input?: unknown }) =>
  `Expected an integer such as 2, received ${JSON.stringify(issue.input)?.slice(0, 64) ?? 'nothing'}`;

export const laxInt = () =>
  z
    .union([z.number(), z.string().regex(DECIMAL_INT).transform(fromText), z.boolean().transform(Number)], {
      error: expected,
    })
    // A fraction sent as a number passes the union; it is refused in the same words as one sent as text.
    .pipe(z.number().int({ error: expected }));
