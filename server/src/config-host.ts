import { isIP } from 'node:net';
import type { z } from 'zod';

/**
 * listen() takes a bare address, so "[::1]" or "127.0.0.1:4000" would fail later (or be refused as open mode on a
 * public address) with a message about something else; each gets its own here.
 */
export const checkHost = (host: string, ctx: z.RefinementCtx) => {
  if (/[\s/]/.test(host) || !/[:[\]]/.test(host) || isIP(host) === 6) return;
  const bare = /^\[([^\]]*)\](:\d*)?$/.exec(host)?.[1];
  const port = /^([^:[\]]+):(\d*)$/.exec(host);
  const message =
    bare !== undefined && isIP(bare) === 6
      ? `write an IPv6 address without brackets, e.g. ${bare} (the port goes in PORT)`
      : port
        ? `the port goes in PORT; allowed is an address or host name alone, e.g. ${port[1]}`
        : "only an IPv6 address may contain ':', and none is written in brackets here, e.g. :: or ::1";
  ctx.addIssue({ code: 'custom', message, params: { explained: true } });
};

/**
 * The origin policy compares entries with the Host header as URL parses it, so an entry only ever matches if URL
 * spells it the same way: "fd00::1" (no brackets), "host:80" (a default port URL drops) or "*.example.com" never
 * would, and are refused rather than kept as dead entries.
 */
export const isHostHeader = (entry: string) => {
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/.test(entry)) return false;
  try {
    return new URL(`http://${entry}`).host === entry.toLowerCase();
  } catch {
    return false;
  }
};
