import { PlanHubError } from '@planhub/shared';

/** How many largest bodies (payloadBytes each) may be held at once for one client address, and by the node. */
export const BODIES_PER_ADDRESS = 8;
export const BODIES_PER_NODE = 256;
/** A body that has not arrived whole by then is refused: stalling one holds its bytes no longer than this. */
export const BODY_DEADLINE_MS = 10_000;
const RETRY_MS = 1000;

/** The bytes one body being read holds: added to as they arrive, given back once when it is read or abandoned. */
interface BodyHold {
  /** Holds `bytes` more: the refusal when they do not fit (the read then stops), else undefined. */
  add(bytes: number): PlanHubError | undefined;
  release(): void;
}

/**
 * Bytes of MCP request bodies being read at once, per client address and per node. A body is read whole before its
 * request is looked at (its bytes are what the call is charged), so a client that sends a body slowly holds what it
 * sent until it is done: before round 30, 3,000 POSTs from one address that declared 1 MB and stalled held 2.1 GB
 * for the 30 s request timeout, past every session cap. Bytes are held as they arrive, not as declared (a request
 * that declares much and sends nothing holds nothing, so it cannot lock others out), and a body not read within
 * BODY_DEADLINE_MS is refused (readBodyBytes), so stalling holds real bytes for a short time only.
 */
export const createBodyBudget = (payloadBytes: number) => {
  const perAddress = BODIES_PER_ADDRESS * payloadBytes;
  const perNode = BODIES_PER_NODE * payloadBytes;
  const byAddress = new Map<string, number>();
  let total = 0;
  const refuse = (message: string) =>
    new PlanHubError('RESOURCE_EXHAUSTED', `${message}; retry in 1 s.`, { retry_after_ms: RETRY_MS });
  return {
    /** A hold for one body from `address`, holding nothing yet. */
    open(address: string): BodyHold {
      let held = 0;
      let released = false;
      return {
        add(bytes) {
          if (released) return undefined;
          const fromAddress = byAddress.get(address) ?? 0;
          if (fromAddress + bytes > perAddress)
            return refuse(
              `Address ${address} is already sending ${fromAddress} bytes of MCP request bodies to this node, at ` +
                `most ${perAddress} at once: wait for answers before sending more`,
            );
          if (total + bytes > perNode)
            return refuse(
              `This node is already reading ${total} bytes of MCP request bodies, its most; use another node`,
            );
          byAddress.set(address, fromAddress + bytes);
          total += bytes;
          held += bytes;
          return undefined;
        },
        release() {
          if (released) return;
          released = true;
          total -= held;
          const left = (byAddress.get(address) ?? held) - held;
          if (left > 0) byAddress.set(address, left);
          else byAddress.delete(address);
        },
      };
    },
    /** Bytes held now (for tests and metrics). */
    held: () => total,
  };
};
