import { PlanHubError } from '@planhub/shared';

/** How many largest bodies (payloadBytes each) may be read at once from one client address, and by the node. */
export const BODIES_PER_ADDRESS = 8;
export const BODIES_PER_NODE = 64;
const RETRY_MS = 1000;

/**
 * Bytes of MCP request bodies being read at once, per client address and per node. A body is read whole before its
 * request is looked at (its bytes are what the call is charged), so a client that declares a large body and sends it
 * slowly holds that memory until the request times out: before round 30, 3,000 stalled POSTs from one address held
 * 2.1 GB for 30 s, past every session cap. A body holds its declared length (the most a chunked one may grow to)
 * from before its first byte is read until it is read or abandoned; one that does not fit is refused at once.
 */
export const createBodyBudget = (payloadBytes: number) => {
  const perAddress = BODIES_PER_ADDRESS * payloadBytes;
  const perNode = BODIES_PER_NODE * payloadBytes;
  const byAddress = new Map<string, number>();
  let total = 0;
  const refuse = (message: string) =>
    new PlanHubError('RESOURCE_EXHAUSTED', `${message}; retry in 1 s.`, { retry_after_ms: RETRY_MS });
  return {
    /** Holds a body's bytes; the returned release gives them back (a second call changes nothing). */
    hold(address: string, declared: number | undefined): () => void {
      const bytes = Math.min(payloadBytes, declared ?? payloadBytes);
      const held = byAddress.get(address) ?? 0;
      if (held + bytes > perAddress)
        throw refuse(
          `Address ${address} is already sending ${held} bytes of MCP request bodies to this node, at most ` +
            `${perAddress} at once: wait for answers before sending more`,
        );
      if (total + bytes > perNode)
        throw refuse(`This node is already reading ${total} bytes of MCP request bodies, its most; use another node`);
      byAddress.set(address, held + bytes);
      total += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= bytes;
        const left = (byAddress.get(address) ?? bytes) - bytes;
        if (left > 0) byAddress.set(address, left);
        else byAddress.delete(address);
      };
    },
    /** Bytes held now (for tests and metrics). */
    held: () => total,
  };
};

/** A request's declared body length, or undefined when it declares none (chunked) or an unusable one. */
export const declaredLength = (header: string | undefined): number | undefined => {
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
};
