import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import ipaddr from 'ipaddr.js';
import type { Ctx } from '../../core/context.js';
import { conflict, invalid, notFound } from '../../core/errors.js';
import { keepStore, transaction } from '../../core/tx.js';
import { executePreparedWhere } from '../../db/prepared.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { e164 } from '../../lib/phone.js';
import { StorefrontBlock } from './storefront-blocklist.entity.js';
import type { BlockKind, StorefrontBlockInput, StorefrontBlockType } from './storefront-blocklist.types.js';

export const DEFAULT_PHONE_REGION = 'DZ';

/**
 * The region a store's shoppers type their phones in: its storefront setting `phoneRegion`, else
 * DZ. Read through the row as JSON so it answers whether or not the `storefront` column exists.
 */
export async function storePhoneRegion(em: EntityManager, storeId: string): Promise<string> {
  const [row] = await em.execute<Array<{ region: string | null }>>(`select to_jsonb(s) -> 'storefront' ->> 'phoneRegion' as region from stores s where s.id = ?`, [storeId]);
  return row?.region || DEFAULT_PHONE_REGION;
}

/** An address as written (v4 dotted quad, v6 without zone), or null. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes('%') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/**
 * An IP address or CIDR range in its one spelling: the network address (host bits cleared) and
 * its prefix length, IPv6 compressed (RFC 5952), an IPv4-mapped range as IPv4; a bare address is
 * a /32 or /128. Null when it is neither.
 */
export function normalizeNet(text: string): string | null {
  const m = /^([0-9A-Fa-f:.]+)(?:\/(\d{1,3}))?$/.exec(text);
  if (!m) return null;
  let addr = parseAddress(m[1]);
  if (!addr) return null;
  let bits = m[2] === undefined ? (addr.kind() === 'ipv4' ? 32 : 128) : Number(m[2]);
  if (bits > (addr.kind() === 'ipv4' ? 32 : 128)) return null;
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const net = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return `${net.toString()}/${bits}`;
}

/** A caller's address as PostgreSQL compares it (IPv4-mapped IPv6 as IPv4), or null when it is none. */
export function plainAddress(ip: string | null): string | null {
  if (!ip) return null;
  const addr = parseAddress(ip);
  return addr ? ipaddr.process(addr.toString()).toString() : null;
}

function normalizedValue(kind: BlockKind, value: string, region: string): string {
  const text = value.trim();
  if (kind === 'phone') {
    const phone = e164(text, region);
    if (!phone) throw invalid('value', `must be a valid phone number: international (+...) or national in the store's phone region ${region}`);
    return phone;
  }
  const net = normalizeNet(text);
  if (!net) throw invalid('value', 'must be an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32');
  return net;
}

const view = (b: StorefrontBlock): StorefrontBlockType => ({ id: b.id, kind: b.kind as BlockKind, value: b.value, note: b.note, createdAt: b.createdAt.toISOString() });

export async function listBlocklist(ctx: Ctx, storeId: string, args: { limit?: number | null; cursor?: string | null }): Promise<{ data: StorefrontBlockType[]; nextCursor: string | null }> {
  const limit = pageLimit(args.limit);
  const rows = await ctx.em.find(StorefrontBlock, { storeId, ...(args.cursor ? { id: { $lt: args.cursor } } : {}) }, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(view), nextCursor: p.nextCursor };
}

/** Adds an entry; the same phone or range twice is a 409. */
export async function createBlocklistEntry(ctx: Ctx, storeId: string, input: StorefrontBlockInput): Promise<StorefrontBlockType> {
  try {
    return await transaction(ctx, async (tx) => {
      await keepStore(tx, storeId);
      const region = input.kind === 'phone' ? await storePhoneRegion(tx.em as EntityManager, storeId) : DEFAULT_PHONE_REGION;
      const value = normalizedValue(input.kind, input.value, region);
      const row = tx.em.create(StorefrontBlock, { storeId, kind: input.kind, value, net: input.kind === 'ip' ? value : null, note: input.note ?? null });
      await tx.em.flush();
      return view(row);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict('This phone or range is already on the blocklist');
    throw err;
  }
}

export async function deleteBlocklistEntry(ctx: Ctx, storeId: string, id: string): Promise<void> {
  await transaction(ctx, async (tx) => {
    const [row] = await tx.em.execute<Array<{ id: string }>>('delete from storefront_blocklist where id = ? and store_id = ? returning id', [id, storeId]);
    if (!row) throw notFound('blocklist entry');
  });
}

/**
 * The store's entries a shopper matches: the phone (already E.164) exactly, the address when it
 * lies inside an entry's range. One statement on the store's entries (its unique index).
 */
export async function blocklistHits(em: EntityManager, storeId: string, who: { phone: string | null; ip: string | null }): Promise<Array<{ id: string; kind: 'phone' | 'ip'; value: string }>> {
  const ip = plainAddress(who.ip);
  if (!who.phone && !ip) return [];
  return executePreparedWhere<{ id: string; kind: 'phone' | 'ip'; value: string }>(
    em,
    `select id, kind, value from storefront_blocklist
      where store_id = ? and ((kind = 'phone' and value = ?) or (kind = 'ip' and net >>= ?::inet))
      order by id`,
    [storeId, who.phone, ip],
  );
}

/**
 * Whether any of these phones or addresses is blocked, in one statement (a customer's other
 * phones and addresses, for the risk score): which kinds were hit.
 */
export async function blocklistHitsAny(em: EntityManager, storeId: string, phones: readonly string[], ips: readonly string[]): Promise<{ phone: boolean; ip: boolean }> {
  const addresses = ips.map((ip) => plainAddress(ip)).filter((ip): ip is string => ip !== null);
  if (!phones.length && !addresses.length) return { phone: false, ip: false };
  const rows = await executePreparedWhere<{ kind: 'phone' | 'ip' }>(
    em,
    `select distinct kind from storefront_blocklist
      where store_id = ? and ((kind = 'phone' and value in (select jsonb_array_elements_text(?::jsonb)))
         or (kind = 'ip' and net >>= any (select a::inet from jsonb_array_elements_text(?::jsonb) a)))`,
    // As JSON: the driver would spread an array into a list of parameters.
    [storeId, JSON.stringify(phones), JSON.stringify(addresses)],
  );
  return { phone: rows.some((r) => r.kind === 'phone'), ip: rows.some((r) => r.kind === 'ip') };
}
