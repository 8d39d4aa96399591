import type { DisconnectReason } from '@planhub/shared';

/** What a connection or stream cut for not reading is told; the socket and MCP doors differ only in their wording. */
export interface SlowConsumer {
  /** What was closed, as the sentence's subject ("This connection"). */
  closed: string;
  /** What it left unread ("its events"). */
  unread: string;
  queuedBytes: number;
  /** The connection's own limit (outboundBytes). */
  limitBytes: number;
  /** Set when the cut is for the total of all the connections of the client's address instead. */
  address?: AddressCut | undefined;
  /** How the client gets back what it missed. */
  recover: string;
}

/** What an address's connections held together when one of them was cut for it, and that total's limit. */
export interface AddressCut {
  bytes: number;
  limit: number;
}

const overLimit = ({ limitBytes, address }: SlowConsumer): string =>
  address === undefined
    ? `past the limit of ${limitBytes} (outboundBytes)`
    : `the most of any connection from its address, whose connections had ${address.bytes} bytes queued, past ` +
      `the limit of ${address.limit} for one address (outboundBytesPerAddress)`;

/**
 * The reason sent to, and logged for, a client cut for letting more than outboundBytes queue for it, or for
 * holding the most of its address's total when that passed outboundBytesPerAddress.
 */
export const slowConsumerReason = (cut: SlowConsumer): DisconnectReason => ({
  code: 'RESOURCE_EXHAUSTED',
  reason: 'slow_consumer',
  message:
    `${cut.closed} was closed because it did not read ${cut.unread}: ${cut.queuedBytes} bytes were queued for it, ` +
    `${overLimit(cut)}. ${cut.recover}`,
  queued_bytes: cut.queuedBytes,
  limit_bytes: cut.address?.limit ?? cut.limitBytes,
});
