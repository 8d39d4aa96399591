/** What a scan of raw JSON text found: the first limit it passed, or undefined when it passed none. */
export type JsonExcess = 'values' | 'depth' | undefined;

export interface JsonScanLimits {
  /** Keys plus array elements: each `:` and `,` outside strings. */
  maxValues: number;
  /** Objects and arrays open at once, the outermost included (Infinity: depth is not looked at). */
  maxDepth: number;
}

/**
 * One pass over raw JSON text, counting values and nesting outside strings, stopping at the first limit passed:
 * a hostile text of 60,000 keys costs a short scan instead of a parse, a walk and a schema run. Shared by the
 * socket.io frame guard (transport/frame-guard.ts) and the MCP request body (mcp/request-body.ts), so both doors
 * count alike. The text need not be valid JSON: it is scanned as it came, and parsed (or refused) afterwards.
 */
export const scanJson = (text: string, limits: JsonScanLimits): JsonExcess => {
  const { maxValues, maxDepth } = limits;
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return 'depth';
    } else if (c === 125 || c === 93) depth--;
    else if (c === 58 || c === 44) {
      if (++values > maxValues) return 'values';
    }
  }
  return undefined;
};

/**
 * The refusal of a text over `maxValues` (RESOURCE_EXHAUSTED), in the same words at every door; `what` is what the
 * client sent: "The call" on a socket, "The request" over MCP.
 */
export const tooManyValues = (what: string, maxValues: number): string =>
  `${what} has more than ${maxValues} keys and array elements; send less per call, or store large data elsewhere ` +
  'and pass a reference.';
