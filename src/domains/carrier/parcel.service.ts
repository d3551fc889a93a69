import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../core/context.js';
import { AppError, conflict, invalid, notFound, type ErrorCode } from '../../core/errors.js';
import { toMajor, toMinor } from '../../core/money.js';
import { transaction, type TxCtx } from '../../core/tx.js';
import { page, pageLimit } from '../../lib/pagination.js';
import { CarrierError, type CarrierParcelRequest, type CarrierParcelState, type CarrierWilaya, type CreateOutcome } from '../../providers/carrier.js';
import { applyFulfillment, lockForFulfillment, lockOrdersForShipping, type ShippableOrder } from '../orders/order.fulfillment.js';
import { codRemitted } from '../payments/payment.service.js';
import { wilayaCode } from '../integrations/integration.kinds.js';
import { callCarrier, carrierCommunes, carrierFailure, carrierWilayas, requireCarrier, type CarrierHandle } from './carrier.client.js';
import { Parcel, type ParcelRecipient } from './parcel.entity.js';
import type { CarrierSendFailureType, CarrierSendInput, CarrierSendManyResult, ParcelLabelType, ParcelType } from './carrier.types.js';

/** A creation call in flight holds its parcel this long (the carrier call times out at 10 s). */
const LEASE_MS = 60_000;
/** Parcels that no longer block a new one for their order, and whose status never changes again. */
export const FINAL_PARCEL_STATUSES = ['cancelled', 'returned'];
/** Kinds of order status that may not be shipped. */
const UNSHIPPABLE_KINDS = new Set(['rejected', 'cancelled']);

export function parcelView(p: Parcel): ParcelType {
  return {
    id: p.id,
    orderId: p.orderId,
    provider: p.provider,
    tracking: p.tracking,
    status: p.status,
    rawStatus: p.rawStatus,
    labelUrl: p.labelUrl,
    deliveryType: p.deliveryType,
    stopDeskId: p.stopDeskId,
    codAmount: toMajor(p.codAmount, p.currency),
    deliveryFee: p.deliveryFee === null ? null : toMajor(p.deliveryFee, p.currency),
    currency: p.currency,
    paymentStatus: p.paymentStatus,
    history: p.history,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export async function listParcels(ctx: Ctx, storeId: string, f: { orderId?: string | null; status?: string | null; limit?: number | null; cursor?: string | null }) {
  const limit = pageLimit(f.limit);
  const where: Record<string, unknown> = { storeId };
  if (f.orderId) where.orderId = f.orderId;
  if (f.status) where.status = f.status;
  if (f.cursor) where.id = { $lt: f.cursor };
  const rows = await ctx.em.find(Parcel, where, { orderBy: { id: 'desc' }, limit: limit + 1 });
  const p = page(rows, limit);
  return { data: p.data.map(parcelView), nextCursor: p.nextCursor };
}

export async function getParcel(ctx: Ctx, storeId: string, id: string): Promise<ParcelType> {
  const p = await ctx.em.findOne(Parcel, { id, storeId });
  if (!p) throw notFound('parcel');
  return parcelView(p);
}

/** What a carrier told us about a parcel, from a creation answer, a webhook event or a poll. */
export interface CarrierNews {
  tracking: string | null;
  orderId: string | null;
  status: string | null;
  rawStatus: string | null;
  reason: string | null;
  occurredAt: Date | null;
  paymentStatus: string | null;
  labelUrl: string | null;
  /** Whole dinars, as carriers count. */
  deliveryFee: number | null;
}

export const newsOf = (s: CarrierParcelState, reason: string | null = null): CarrierNews => ({ ...s, reason });

/**
 * Locks in the one order every writer uses (target status, then order, then parcel) and
 * applies the news: parcel status, history and cash state; then the order's `fulfillment` and,
 * through `orderStatusMap`, its status, in one orderUpdated. News older than the newest
 * applied (`occurredAt`) changes nothing; cancelled and returned parcels keep their status.
 */
export async function applyNews(tx: TxCtx, handle: Pick<CarrierHandle, 'storeId' | 'provider' | 'statusMap'>, news: CarrierNews, source: string): Promise<'applied' | 'unchanged' | 'stale' | 'unknown'> {
  const em = tx.em as EntityManager;
  const [found] = await em.execute<Array<{ id: string; order_id: string }>>(
    news.tracking
      ? `select id, order_id from parcels where store_id = ? and provider = ? and (tracking = ? or (tracking is null and status = 'creating' and order_id = ?)) order by tracking nulls last limit 1`
      : `select id, order_id from parcels where store_id = ? and provider = ? and tracking is null and status = 'creating' and order_id = ? limit 1`,
    news.tracking ? [handle.storeId, handle.provider, news.tracking, news.orderId ?? ''] : [handle.storeId, handle.provider, news.orderId ?? ''],
  );
  if (!found) return 'unknown';
  const order = await lockForFulfillment(tx, handle.storeId, found.order_id, news.status ? handle.statusMap[news.status] : null);
  const parcel = await em.findOne(Parcel, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!parcel) return 'unknown';
  const now = new Date();
  // Only the carrier's own clock orders news; news without a time is applied as it comes.
  if (news.occurredAt && parcel.lastEventAt && news.occurredAt < parcel.lastEventAt) return 'stale';
  const at = news.occurredAt ?? now;

  const before = { status: parcel.status, rawStatus: parcel.rawStatus, tracking: parcel.tracking, labelUrl: parcel.labelUrl, paymentStatus: parcel.paymentStatus, deliveryFee: parcel.deliveryFee };
  if (news.tracking && !parcel.tracking) parcel.tracking = news.tracking;
  if (news.labelUrl && !parcel.labelUrl) parcel.labelUrl = news.labelUrl;
  if (!FINAL_PARCEL_STATUSES.includes(parcel.status)) {
    if (news.status) parcel.status = news.status;
    // A parcel the carrier holds is no longer being created, whatever it says of it.
    else if (parcel.status === 'creating' && parcel.tracking) parcel.status = 'pending';
  }
  if (news.rawStatus) parcel.rawStatus = news.rawStatus;
  if (news.paymentStatus) parcel.paymentStatus = news.paymentStatus;
  if (news.deliveryFee !== null) parcel.deliveryFee = toMinor(news.deliveryFee, parcel.currency, 'deliveryFee');
  if (parcel.status !== 'creating') parcel.claimedUntil = null;
  const moved = parcel.status !== before.status || parcel.rawStatus !== before.rawStatus;
  if (moved) parcel.history = [...parcel.history, { status: parcel.status, rawStatus: parcel.rawStatus, reason: news.reason, occurredAt: at.toISOString(), source }];
  if (news.occurredAt && !(parcel.lastEventAt && parcel.lastEventAt > news.occurredAt)) parcel.lastEventAt = news.occurredAt;
  const shown = parcel.status !== before.status || parcel.tracking !== before.tracking || parcel.labelUrl !== before.labelUrl;
  const changed = moved || shown || parcel.paymentStatus !== before.paymentStatus || parcel.deliveryFee !== before.deliveryFee;
  parcel.checkedAt = now;
  if (changed) parcel.updatedAt = now;
  await em.flush();

  if (order && shown) {
    const fulfillment = { parcelId: parcel.id, tracking: parcel.tracking, status: parcel.status, labelUrl: parcel.labelUrl };
    await applyFulfillment(tx, order, { fulfillment, moveStatus: parcel.status !== before.status });
  }
  // The carrier remitted the cash it collected: the order's cash-on-delivery payment is paid.
  if (order && parcel.paymentStatus === 'paid' && before.paymentStatus !== 'paid' && parcel.codAmount > 0) await codRemitted(tx, order.orderId, parcel.codAmount);
  return changed ? 'applied' : 'unchanged';
}

// ---- sending ----

interface SendRequest {
  orderId: string;
  provider?: string | null;
  deliveryType?: string | null;
  stopDeskId?: string | null;
  recipient?: CarrierSendInput['recipient'];
}

interface Claim {
  parcelId: string;
  orderId: string;
  recipient: ParcelRecipient;
  stopDeskId: string | null;
  codAmount: number;
  productList: string;
  /** The carrier surely holds no parcel for it (never sent, or looked up and not found). */
  absent: boolean;
}

class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

const refuse = (code: ErrorCode, message: string, path?: string) => new Refusal(code, message, path);

function splitName(name: string): { first: string; last: string } {
  const parts = name.trim().split(/\s+/);
  return { first: parts[0], last: parts.slice(1).join(' ') || parts[0] };
}

function productList(order: ShippableOrder): string {
  const text = order.items.map((i) => (i.quantity > 1 ? `${i.name} x${i.quantity}` : i.name)).join(', ');
  return (text || `Order ${order.id}`).slice(0, 250);
}

/** Who and where, from the request over the order; refuses what a carrier cannot ship. */
function recipientOf(order: ShippableOrder, req: SendRequest, wilayas: Map<number, CarrierWilaya>): { recipient: ParcelRecipient; deliveryType: string; stopDeskId: string | null } {
  const r = req.recipient ?? {};
  const addr = order.shippingAddress;
  const phone = r.phone ?? order.customerPhone;
  if (!phone) throw refuse('VALIDATION_FAILED', 'The order has no customer phone; give recipient.phone', 'recipient.phone');
  const deliveryType = req.deliveryType ?? (order.shippingType === 'desk' ? 'stopdesk' : 'home');
  const stopDeskId = deliveryType === 'stopdesk' ? (req.stopDeskId ?? null) : null;
  if (deliveryType === 'stopdesk' && !stopDeskId) throw refuse('VALIDATION_FAILED', 'A stop desk delivery needs stopDeskId', 'stopDeskId');
  const address = r.address ?? addr?.address ?? null;
  if (deliveryType === 'home' && !address) throw refuse('VALIDATION_FAILED', 'The order has no shipping address; give recipient.address', 'recipient.address');
  const rawWilaya = r.wilayaCode ?? addr?.wilayaCode ?? null;
  const code = wilayaCode(rawWilaya);
  if (code === null) throw refuse('VALIDATION_FAILED', rawWilaya ? 'recipient.wilayaCode must be a wilaya code from 1 to 69' : 'The order has no wilaya; give recipient.wilayaCode', 'recipient.wilayaCode');
  const wilaya = wilayas.get(code);
  if (!wilaya || !wilaya.deliverable) throw refuse('VALIDATION_FAILED', `The carrier does not deliver to wilaya ${code}`, 'recipient.wilayaCode');
  const communeName = r.communeName ?? (r.communeId ? null : (addr?.communeName ?? null));
  const communeId = r.communeId ?? (r.communeName ? null : (addr?.communeId ?? null));
  if (!communeName && !communeId) throw refuse('VALIDATION_FAILED', 'The order has no commune; give recipient.communeName or recipient.communeId', 'recipient.communeName');
  return {
    recipient: { name: (r.name ?? order.customerName).trim(), phone, address, wilayaCode: String(code), communeId, communeName },
    deliveryType,
    stopDeskId,
  };
}

/** Claims the orders: a `creating` row per order, committed before any carrier call. */
async function claim(ctx: Ctx, handle: CarrierHandle, requests: SendRequest[], wilayas: Map<number, CarrierWilaya>, failed: CarrierSendFailureType[] | null): Promise<Claim[]> {
  return transaction(ctx, async (tx) => {
    const em = tx.em;
    const ids = requests.map((r) => r.orderId);
    const byOrder = await lockOrdersForShipping(tx, handle.storeId, ids);
    const live = await em.find(Parcel, { orderId: { $in: ids }, status: { $nin: FINAL_PARCEL_STATUSES } }, { orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE });
    const liveByOrder = new Map(live.map((p) => [p.orderId, p]));
    const now = new Date();
    const claims: Claim[] = [];
    for (const req of requests) {
      try {
        const order = byOrder.get(req.orderId);
        if (!order) throw refuse('NOT_FOUND', 'No such order', 'orderId');
        const kind = order.statusKind;
        if (kind && UNSHIPPABLE_KINDS.has(kind)) throw refuse('CONFLICT', `A ${kind} order cannot be shipped`);
        const existing = liveByOrder.get(order.id);
        if (existing) {
          if (existing.status !== 'creating') throw refuse('CONFLICT', `The order already has a live parcel (${existing.id}, ${existing.status})`);
          if (existing.claimedUntil && existing.claimedUntil > now) throw refuse('CONFLICT', 'A parcel is being created for this order right now');
          // An earlier call's outcome is unknown: this one finds out before creating anything.
          existing.claimedUntil = new Date(now.getTime() + LEASE_MS);
          claims.push({ parcelId: existing.id, orderId: order.id, recipient: existing.recipient, stopDeskId: existing.stopDeskId, codAmount: existing.codAmount, productList: productList(order), absent: false });
          continue;
        }
        if (order.currency !== 'DZD') throw refuse('VALIDATION_FAILED', `The carrier collects DZD only; this order is in ${order.currency}`, 'orderId');
        const { recipient, deliveryType, stopDeskId } = recipientOf(order, req, wilayas);
        // The courier collects what is still due (nothing for an order paid online).
        const codAmount = order.due;
        const parcel = em.create(Parcel, {
          storeId: handle.storeId,
          orderId: order.id,
          provider: handle.provider,
          status: 'creating',
          deliveryType,
          stopDeskId,
          recipient,
          codAmount,
          currency: order.currency,
          claimedUntil: new Date(now.getTime() + LEASE_MS),
          checkedAt: now,
          createdAt: now,
          updatedAt: now,
        });
        claims.push({ parcelId: parcel.id, orderId: order.id, recipient, stopDeskId, codAmount, productList: productList(order), absent: true });
      } catch (err) {
        // One order: its refusal is the call's error; many: each is listed.
        if (!(err instanceof Refusal) || !failed) throw err instanceof Refusal ? asAppError(err) : err;
        failed.push({ orderId: req.orderId, code: err.code, message: err.message });
      }
    }
    await em.flush();
    return claims;
  });
}

function asAppError(r: Refusal): AppError {
  return new AppError(r.code, r.message, r.path ? [{ path: r.path, message: r.message }] : undefined);
}

/** Gives claims back: rows the carrier surely lacks go; the others stay `creating`, unclaimed, for a retry. */
async function release(ctx: Ctx, claims: Claim[], deleteAbsent: boolean): Promise<void> {
  const gone = claims.filter((c) => deleteAbsent && c.absent).map((c) => c.parcelId);
  const kept = claims.filter((c) => !(deleteAbsent && c.absent)).map((c) => c.parcelId);
  if (gone.length) await ctx.em.execute(`delete from parcels where id in (?) and status = 'creating'`, [gone]);
  if (kept.length) await ctx.em.execute(`update parcels set claimed_until = null where id in (?) and status = 'creating'`, [kept]);
}

/** The carrier's commune name for each claim that names its commune by id only. */
async function communeNames(ctx: Ctx, handle: CarrierHandle, claims: Claim[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  for (const c of claims) {
    if (c.recipient.communeName) {
      names.set(c.parcelId, c.recipient.communeName);
      continue;
    }
    const communes = await carrierCommunes(ctx, handle, Number(c.recipient.wilayaCode));
    names.set(c.parcelId, communes.find((x) => x.id === c.recipient.communeId)?.name ?? null);
  }
  return names;
}

/**
 * The send pipeline, for one order or many: claim (committed), look up what an earlier
 * unanswered call may have created, create the rest in one carrier call, settle.
 */
async function ship(ctx: Ctx, storeId: string, requests: SendRequest[], batch: boolean): Promise<CarrierSendManyResult> {
  const handle = await requireCarrier(ctx, storeId, requests[0]?.provider);
  const wilayas = new Map((await carrierWilayas(ctx, handle)).map((w) => [w.code, w]));
  const from = wilayas.get(handle.fromWilaya);
  if (!from) throw new AppError('NOT_CONFIGURED', `The carrier does not know the integration's fromWilaya ${handle.fromWilaya}`);
  const failed: CarrierSendFailureType[] = [];
  let claims = await claim(ctx, handle, requests, wilayas, batch ? failed : null);
  if (!handle.adapter.findsByOrderId) {
    // This carrier cannot be asked whether a lost creation happened: never risk a second parcel.
    const blind = claims.filter((c) => !c.absent);
    if (blind.length) {
      await release(ctx, blind, false);
      for (const c of blind) {
        failed.push({
          orderId: c.orderId,
          code: 'CONFLICT',
          message: `An earlier send's answer was lost and ${handle.provider} cannot be asked for a parcel by order: check the carrier's dashboard, then cancel parcel ${c.parcelId} to send the order again`,
        });
      }
      claims = claims.filter((c) => c.absent);
    }
  }
  const outcomes = new Map<string, CreateOutcome>();
  const fail = (c: Claim, code: ErrorCode, message: string) => failed.push({ orderId: c.orderId, code, message });
  let pending = claims;
  try {
    const resumed = claims.filter((c) => !c.absent);
    if (resumed.length) {
      const found = await handle.adapter.track({ orderIds: resumed.map((c) => c.orderId) });
      for (const c of resumed) {
        const state = found.find((s) => s.orderId === c.orderId);
        if (state) outcomes.set(c.parcelId, { ok: true, parcel: state });
        else c.absent = true;
      }
    }
    const names = await communeNames(ctx, handle, claims.filter((c) => !outcomes.has(c.parcelId)));
    const toCreate: Array<{ claim: Claim; request: CarrierParcelRequest }> = [];
    for (const c of claims) {
      if (outcomes.has(c.parcelId)) continue;
      const communeName = names.get(c.parcelId);
      if (!communeName) {
        outcomes.set(c.parcelId, { ok: false, message: `The carrier has no commune ${c.recipient.communeId} in wilaya ${c.recipient.wilayaCode}` });
        continue;
      }
      const { first, last } = splitName(c.recipient.name);
      toCreate.push({
        claim: c,
        request: {
          orderId: c.orderId,
          firstName: first,
          lastName: last,
          phone: c.recipient.phone,
          address: c.recipient.address ?? c.recipient.communeName ?? communeName,
          fromWilaya: from,
          toWilaya: wilayas.get(Number(c.recipient.wilayaCode))!,
          communeName,
          productList: c.productList,
          codAmount: Math.round(toMajor(c.codAmount, 'DZD')),
          stopDeskId: c.stopDeskId,
        },
      });
    }
    if (toCreate.length) {
      let answer: Map<string, CreateOutcome>;
      try {
        answer = await handle.adapter.create(toCreate.map((x) => x.request));
      } catch (err) {
        // A refusal of the whole call created nothing: each of its parcels is refused.
        if (!(err instanceof CarrierError) || err.kind !== 'rejected') throw err;
        answer = new Map(toCreate.map((x) => [x.request.orderId, { ok: false, message: err.message } as CreateOutcome]));
      }
      for (const { claim: c } of toCreate) {
        const o = answer.get(c.orderId);
        if (o) outcomes.set(c.parcelId, o);
      }
    }
    pending = [];
  } catch (err) {
    // 401/403 and 429 mean nothing was created; a timeout or 5xx leaves the outcome unknown.
    const nothingCreated = err instanceof CarrierError && (err.kind === 'auth' || err.kind === 'rate_limited');
    await release(ctx, pending, nothingCreated);
    throw await carrierFailure(ctx, handle, err);
  }
  return settle(ctx, handle, claims, outcomes, failed);
}

/** Records each claim's outcome: created parcels and their orders, refusals, unknowns. */
async function settle(ctx: Ctx, handle: CarrierHandle, claims: Claim[], outcomes: Map<string, CreateOutcome>, failed: CarrierSendFailureType[]): Promise<CarrierSendManyResult> {
  const refused = claims.filter((c) => outcomes.get(c.parcelId)?.ok === false);
  const unknown = claims.filter((c) => !outcomes.has(c.parcelId));
  await release(ctx, refused, true);
  await release(ctx, unknown, false);
  for (const c of refused) {
    const o = outcomes.get(c.parcelId) as { ok: false; message: string };
    failed.push({ orderId: c.orderId, code: 'VALIDATION_FAILED', message: `The carrier refused the parcel: ${o.message}` });
  }
  for (const c of unknown) failed.push({ orderId: c.orderId, code: 'BAD_GATEWAY', message: 'The carrier did not say whether it created the parcel; send again to find out' });
  const data: ParcelType[] = [];
  const created = claims.filter((c) => outcomes.get(c.parcelId)?.ok);
  if (created.length) {
    await transaction(ctx, async (tx) => {
      for (const c of created) {
        const o = outcomes.get(c.parcelId) as { ok: true; parcel: CarrierParcelState };
        await applyNews(tx, handle, { ...newsOf(o.parcel), orderId: c.orderId }, 'send');
      }
    });
    const rows = await ctx.em.fork().find(Parcel, { id: { $in: created.map((c) => c.parcelId) } }, { orderBy: { id: 'asc' } });
    data.push(...rows.map(parcelView));
  }
  return { data, failed };
}

/** POST /send: one order → 201 Parcel; every refusal is this call's error. */
export async function sendParcel(ctx: Ctx, storeId: string, input: CarrierSendInput): Promise<ParcelType> {
  const { data, failed } = await ship(ctx, storeId, [input], false);
  if (data[0]) return data[0];
  const f = failed[0];
  throw new AppError(f.code as ErrorCode, f.message, f.code === 'VALIDATION_FAILED' ? [{ path: 'orderId', message: f.message }] : undefined);
}

/** POST /sendMany: one claim and one carrier call for up to 100 orders; per-order failures listed. */
export async function sendParcels(ctx: Ctx, storeId: string, orderIds: string[]): Promise<CarrierSendManyResult> {
  const ids = [...new Set(orderIds)];
  if (!ids.length || ids.length > 100) throw invalid('orderIds', 'must hold 1 to 100 ids');
  return ship(ctx, storeId, ids.map((orderId) => ({ orderId })), true);
}

/** Cancels at the carrier a parcel it has not picked up yet; the order may then be sent again. */
export async function cancelParcel(ctx: Ctx, storeId: string, parcelId: string): Promise<ParcelType> {
  const parcel = await ctx.em.findOne(Parcel, { id: parcelId, storeId });
  if (!parcel) throw notFound('parcel');
  if (parcel.status === 'cancelled') return parcelView(parcel);
  const handle = await requireCarrier(ctx, storeId);
  const now = new Date();
  if (parcel.status === 'creating' && !handle.adapter.findsByOrderId && !(parcel.claimedUntil && parcel.claimedUntil > now)) {
    // Only the merchant can tell whether this carrier holds the parcel: cancelling here frees the order.
    await transaction(ctx, (tx) =>
      applyNews(tx, handle, { tracking: null, orderId: parcel.orderId, status: 'cancelled', rawStatus: null, reason: 'cancelled in Souk after a lost answer', occurredAt: null, paymentStatus: null, labelUrl: null, deliveryFee: null }, 'cancel'),
    );
    return getParcel({ ...ctx, em: ctx.em.fork() as Ctx['em'] }, storeId, parcelId);
  }
  if (parcel.status !== 'pending' || !parcel.tracking) throw conflict(`A ${parcel.status} parcel cannot be cancelled`);
  const cancelled = await callCarrier(ctx, handle, (a) => a.cancel(parcel.tracking!));
  if (!cancelled) throw conflict('The carrier refused to cancel the parcel (it may have been picked up already)');
  await transaction(ctx, (tx) =>
    applyNews(tx, handle, { tracking: parcel.tracking, orderId: parcel.orderId, status: 'cancelled', rawStatus: null, reason: null, occurredAt: null, paymentStatus: null, labelUrl: null, deliveryFee: null }, 'cancel'),
  );
  // The transaction wrote through its own fork: read the parcel afresh.
  return getParcel({ ...ctx, em: ctx.em.fork() as Ctx['em'] }, storeId, parcelId);
}

/** A parcel's label from the carrier: its link, or the PDF it answered with (base64). */
export async function parcelLabel(ctx: Ctx, storeId: string, parcelId: string): Promise<ParcelLabelType> {
  const parcel = await ctx.em.findOne(Parcel, { id: parcelId, storeId });
  if (!parcel) throw notFound('parcel');
  if (!parcel.tracking) throw conflict(`A ${parcel.status} parcel has no label yet`);
  const handle = await requireCarrier(ctx, storeId);
  if (handle.provider !== parcel.provider) throw conflict(`The parcel was sent with ${parcel.provider}, which is no longer this store's carrier`);
  const label = await callCarrier(ctx, handle, (a) => a.label(parcel.tracking!));
  if (!label) throw notFound('label');
  return 'url' in label ? { url: label.url, contentType: null, data: null } : { url: null, contentType: 'application/pdf', data: label.pdf.toString('base64') };
}
