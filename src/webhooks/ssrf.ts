import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

/** Addresses a webhook must not reach unless SOUK_WEBHOOK_ALLOW_PRIVATE=1. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Never names the address: a caller probing internal names must not learn what they resolve to. */
export const BLOCKED_MESSAGE = 'refused: the address is not public (private, loopback, link-local or reserved)';

export class BlockedAddressError extends Error {
  constructor() {
    super(BLOCKED_MESSAGE);
    this.name = 'BlockedAddressError';
  }
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for got that checks every address it hands to the socket, so the IP actually
 * connected to is the one checked (no DNS rebinding between check and connect).
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number } | number | LookupCallback, callback?: LookupCallback): void {
  const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
  const opts = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
  dnsLookup(hostname, { ...opts, all: true, family: opts.family ?? 0 }, (err, addresses) => {
    if (err) return cb(err, []);
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (bad) return cb(new BlockedAddressError(), []);
    if (opts.all) return cb(null, addresses);
    return cb(null, addresses[0].address, addresses[0].family);
  });
}
