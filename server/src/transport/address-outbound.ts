/** One connection as its address's total sees it. */
export interface OutboundMember {
  /** Bytes waiting to reach this connection's client on this node. */
  queued(): number;
  /** Cuts the connection because its address is past its total; what it holds is dropped. */
  cutForAddress(addressBytes: number, limitBytes: number): void;
}

/** A connection's place in its address's total. */
export interface AddressShare {
  /** After the connection queued more: cuts the address's largest queues while its total is past the limit. */
  grew(): void;
  /** The connection closed or was cut: it no longer counts. */
  leave(): void;
}

export interface AddressOutbound {
  join(address: string, member: OutboundMember): AddressShare;
  /** The most counted for one address after a send (an estimate that errs high): for metrics. */
  readonly peak: number;
}

interface Tally {
  /** Each member's queue as last measured. */
  members: Map<OutboundMember, number>;
  /** The sum of those: never below the true total by more than what was queued unmeasured since. */
  estimate: number;
}

/**
 * Bounds what one node queues for all the connections of one client address. Each connection is bounded on its own
 * (outboundBytes), but one address may hold connectionsPerAddress of them: 300 paused subscribers from one address
 * took a node from 126 MB to 1,763 MB with none of them past its own limit.
 *
 * A send measures only its own connection; the others' figures may be stale, and only ever high (a queue shrinks
 * without telling anyone), so the address is measured in full only when the estimate passes the limit. Then the
 * connections holding the most are cut until the total is under it: those are the ones that stopped reading, while a
 * client that reads holds next to nothing between events.
 */
export const createAddressOutbound = (limitBytes: number): AddressOutbound => {
  const byAddress = new Map<string, Tally>();
  let peak = 0;

  const measure = (tally: Tally): number => {
    let total = 0;
    for (const member of tally.members.keys()) {
      const bytes = member.queued();
      tally.members.set(member, bytes);
      total += bytes;
    }
    tally.estimate = total;
    return total;
  };

  const largest = (tally: Tally): [OutboundMember, number] | undefined => {
    let found: [OutboundMember, number] | undefined;
    for (const entry of tally.members) if (entry[1] > (found?.[1] ?? 0)) found = entry;
    return found;
  };

  const trim = (tally: Tally, address: string) => {
    let total = measure(tally);
    while (total > limitBytes) {
      const victim = largest(tally);
      if (!victim) break;
      const [member, bytes] = victim;
      // Removed before the cut: its transport keeps its buffer until it is destroyed, which must not count twice.
      tally.members.delete(member);
      member.cutForAddress(total, limitBytes);
      total -= bytes;
    }
    tally.estimate = total;
    if (tally.members.size === 0 && byAddress.get(address) === tally) byAddress.delete(address);
  };

  return {
    join(address, member) {
      let tally = byAddress.get(address);
      if (!tally) byAddress.set(address, (tally = { members: new Map(), estimate: 0 }));
      const own = tally;
      own.members.set(member, 0);
      return {
        grew() {
          const seen = own.members.get(member);
          if (seen === undefined) return;
          const bytes = member.queued();
          own.members.set(member, bytes);
          own.estimate += bytes - seen;
          if (own.estimate > limitBytes) trim(own, address);
          peak = Math.max(peak, own.estimate);
        },
        leave() {
          const seen = own.members.get(member);
          if (seen === undefined) return;
          own.members.delete(member);
          own.estimate -= seen;
          if (own.members.size === 0 && byAddress.get(address) === own) byAddress.delete(address);
        },
      };
    },
    get peak() {
      return peak;
    },
  };
};
