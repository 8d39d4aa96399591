import { describe, expect, it } from 'vitest';
import { createAddressOutbound, type OutboundMember } from '../src/transport/address-outbound.ts';

/** A connection whose queue the test sets; a cut records the totals it was told and empties nothing by itself. */
const connection = (bytes = 0) => {
  const cuts: [number, number][] = [];
  const member: OutboundMember & { bytes: number } = {
    bytes,
    queued: () => member.bytes,
    cutForAddress: (total, limit) => void cuts.push([total, limit]),
  };
  return { member, cuts };
};

describe('the total queued for one client address', () => {
  it('cuts the connections holding the most until the address is under its limit', () => {
    const outbound = createAddressOutbound(100);
    const [a, b, c] = [connection(), connection(), connection()];
    const shares = [a, b, c].map((x) => outbound.join('10.0.0.1', x.member));
    a.member.bytes = 30;
    shares[0]!.grew();
    b.member.bytes = 60;
    shares[1]!.grew();
    expect([a.cuts, b.cuts, c.cuts]).toEqual([[], [], []]);
    c.member.bytes = 45;
    shares[2]!.grew();
    // 135 queued: b (60) goes first and leaves 75, under the limit.
    expect(b.cuts).toEqual([[135, 100]]);
    expect([a.cuts, c.cuts]).toEqual([[], []]);
    // A cut connection no longer counts, whatever its transport still holds: b keeps its 60 while a and c grow to
    // 105, past the limit; a (the larger) goes, and b is not cut a second time.
    a.member.bytes = 60;
    shares[0]!.grew();
    expect([a.cuts, b.cuts, c.cuts]).toEqual([[[105, 100]], [[135, 100]], []]);
    // A share that left is not measured again either.
    shares[2]!.leave();
    c.member.bytes = 500;
    a.member.bytes = 0;
    shares[0]!.grew();
    expect(c.cuts).toEqual([]);
  });

  it('measures the others again before cutting: a queue that drained unnoticed does not count', () => {
    const outbound = createAddressOutbound(100);
    const [a, b] = [connection(90), connection()];
    const [shareA, shareB] = [outbound.join('x', a.member), outbound.join('x', b.member)];
    shareA.grew();
    a.member.bytes = 0;
    b.member.bytes = 50;
    shareB.grew();
    expect([a.cuts, b.cuts]).toEqual([[], []]);
    // The peak is the most counted after a send: a, alone, at 90; the re-measured 50 after it.
    expect(outbound.peak).toBe(90);
  });

  it('keeps addresses apart, and forgets a connection that left', () => {
    const outbound = createAddressOutbound(100);
    const [a, b] = [connection(80), connection(80)];
    const shareA = outbound.join('one', a.member);
    const shareB = outbound.join('two', b.member);
    shareA.grew();
    shareB.grew();
    expect([a.cuts, b.cuts]).toEqual([[], []]);
    shareA.leave();
    const c = connection(80);
    const shareC = outbound.join('one', c.member);
    shareC.grew();
    expect(c.cuts).toEqual([]);
  });
});
