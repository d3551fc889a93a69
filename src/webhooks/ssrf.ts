import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { Config } from '../config.js';

/** Addresses a webhook must not reach unless the settings below open them. */
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

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** In the list; IPv4-mapped IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`) is checked as the IPv4 it maps. */
function listed(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 4) return list.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? list.check(mapped[1], 'ipv4') : list.check(address, 'ipv6');
  }
  return false;
}

export function isBlockedAddress(address: string): boolean {
  return !isIP(address) || listed(blocked, address);
}

/** Which addresses webhooks may reach: a check on an IP, true when it may be connected to. */
export type AddressCheck = (address: string) => boolean;

type AddressSettings = Pick<Config, 'webhookAllowPrivate' | 'webhookAllowLoopback' | 'webhookAllowCidrs'>;

/**
 * Public addresses always; with SOUK_WEBHOOK_ALLOW_PRIVATE every address; with
 * SOUK_WEBHOOK_ALLOW_LOOPBACK loopback too (127.0.0.0/8, ::1); and the private networks
 * SOUK_WEBHOOK_ALLOW_CIDRS names.
 */
export function addressCheck(settings: AddressSettings): AddressCheck {
  let check = checks.get(settings);
  if (!check) checks.set(settings, (check = compile(settings)));
  return check;
}

/** One compiled check per config: deliveries ask for it each time. */
const checks = new WeakMap<AddressSettings, AddressCheck>();

function compile(settings: AddressSettings): AddressCheck {
  if (settings.webhookAllowPrivate) return () => true;
  const allowed = new BlockList();
  for (const c of settings.webhookAllowCidrs) allowed.addSubnet(c.address, c.prefix, c.family);
  return (address) => !isBlockedAddress(address) || (settings.webhookAllowLoopback && listed(loopback, address)) || listed(allowed, address);
}

/**
 * Why a URL's IP literal is refused when it is saved, naming the settings that would allow it.
 * Loopback is saved and judged at send time (the contract's rule): a developer saves a local
 * receiver and turns on SOUK_WEBHOOK_ALLOW_LOOPBACK, and nothing leaves the machine meanwhile.
 */
export function literalRefusal(settings: AddressSettings, url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host) || listed(loopback, host) || addressCheck(settings)(host)) return null;
  return 'is a private, link-local or reserved address: refused unless SOUK_WEBHOOK_ALLOW_CIDRS lists its network (or SOUK_WEBHOOK_ALLOW_PRIVATE=1 opens every private range)';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for got that checks every address it hands to the socket, so the IP actually
 * connected to is the one checked (no DNS rebinding between check and connect).
 */
export function guardedLookup(allowed: AddressCheck) {
  return (hostname: string, options: { all?: boolean; family?: number } | number | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    dnsLookup(hostname, { ...opts, all: true, family: opts.family ?? 0 }, (err, addresses) => {
      if (err) return cb(err, []);
      if (addresses.some((a) => !allowed(a.address))) return cb(new BlockedAddressError(), []);
      if (opts.all) return cb(null, addresses);
      return cb(null, addresses[0].address, addresses[0].family);
    });
  };
}
