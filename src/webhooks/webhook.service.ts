import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from './webhook.entity.js';
import type {
  DeliveryType,
  SendItemType,
  UrlTestResultType,
  WebhookCreateInput,
  WebhookSendInput,
  WebhookType,
  WebhookUpdateInput,
  WebhookUrlTestInput,
  WebhookWithSecretType,
} from './webhook.types.js';
import { AppError, invalid, notFound } from '../core/errors.js';
import { assertJsonLimits } from '../core/input.js';
import { holdsPermission } from '../core/policy.js';
import { maskHeaders, openHeaders, sealHeaders } from './headers.js';
import type { Ctx } from '../core/context.js';
import { lockStore, transaction, type TxCtx } from '../core/tx.js';
import { EVENT_NAMES, entityOf, normalizeEvent, normalizeEvents, type EventName } from '../events/names.js';
import { payloadData, subscribedWebhooks } from '../events/outbox.js';
import { enqueueDeliveries } from '../events/queue.js';
import { decryptSecret, encryptSecret, newWebhookSecret } from './secrets.js';
import { isForbiddenHeader, sendAttempt, TEST_TIMEOUT_MS } from './sender.js';
import { payloadBytes, recordAttempt, HISTORY_KEPT, type RecordedAttempt } from './dispatcher.js';
import { sampleData } from './samples.js';
import { addressCheck, literalRefusal } from './ssrf.js';

export const WEBHOOKS_PER_STORE = 10;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * RFC 9110 field-value: visible ASCII and obs-text (U+0080..U+00FF, which Node sends as Latin-1),
 * with spaces and tabs only between visible characters. Anything else would fail every delivery.
 */
const FIELD_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;
const MAX_HEADERS = 20;

/** Header values only for callers who may write webhooks; others see the names, values masked. */
export function view(w: Webhook, key: Buffer | null): WebhookType {
  return {
    id: w.id,
    storeId: w.storeId,
    name: w.name,
    url: w.url,
    events: w.events,
    headers: key ? openHeaders(key, w) : maskHeaders(w.headers),
    metadata: w.metadata,
    active: w.active,
    hasSecret: !!w.secretEnc,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/** `saving`: the url is being saved, so an IP literal that will never be delivered to is refused now. */
function checkUrl(ctx: Ctx, url: string, saving: boolean): string {
  const path = 'url';
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw invalid(path, 'must be an absolute URL');
  }
  const allowHttp = ctx.deps.config.webhookAllowHttp;
  if (u.protocol !== 'https:' && !(allowHttp && u.protocol === 'http:')) {
    throw invalid(path, allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL (SOUK_WEBHOOK_ALLOW_HTTP=1 allows http://)');
  }
  if (!u.hostname) throw invalid(path, 'must name a host');
  if (u.username || u.password) throw invalid(path, 'must not carry credentials');
  // Only literals can be judged before sending; names (and ad-hoc tests) are judged on the IP at send time.
  const refusal = saving ? literalRefusal(ctx.deps.config, u) : null;
  if (refusal) throw invalid(path, refusal);
  // Kept as given: clients compare the url they saved with the one they read back.
  return url.trim();
}

function checkHeaders(headers: Record<string, unknown>, path = 'headers'): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw invalid(path, `must hold at most ${MAX_HEADERS} headers`);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw invalid(`${path}.${name}`, 'is not a valid header name');
    if (isForbiddenHeader(name)) throw invalid(`${path}.${name}`, 'is a transport or X-Svc- header and cannot be set');
    if (typeof value !== 'string') throw invalid(`${path}.${name}`, 'must be a string');
    if (value.length > 1024) throw invalid(`${path}.${name}`, 'must be at most 1024 characters');
    if (!FIELD_VALUE.test(value)) {
      throw invalid(`${path}.${name}`, 'must be an HTTP field value: visible Latin-1 characters, spaces and tabs inside, no control characters or leading or trailing whitespace');
    }
    out[name] = value;
  }
  return out;
}

function checkMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  assertJsonLimits(metadata, 'metadata');
  if (JSON.stringify(metadata).length > 16 * 1024) throw invalid('metadata', 'must be at most 16 KiB of JSON');
  return metadata;
}

function eventOrDefault(event: string | null | undefined, path = 'event'): EventName {
  if (event == null) return 'orderCreated';
  const canonical = normalizeEvent(event);
  if (!canonical) throw invalid(path, `unknown event; expected one of ${EVENT_NAMES.join(', ')}`);
  return canonical;
}

async function findWebhook(ctx: Ctx, storeId: string, id: string): Promise<Webhook> {
  const webhook = await ctx.em.findOne(Webhook, { id, storeId });
  if (!webhook) throw notFound('webhook');
  return webhook;
}

/** Locked and read afresh: a webhook deleted meanwhile is a 404, not a 200 for a row that is gone. */
async function lockWebhook(tx: TxCtx, storeId: string, id: string): Promise<Webhook> {
  const webhook = await tx.em.findOne(Webhook, { id, storeId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!webhook) throw notFound('webhook');
  return webhook;
}

/** The key that opens header values, for a caller who may write the store's webhooks; null otherwise. */
async function headerKey(ctx: Ctx, storeId: string): Promise<Buffer | null> {
  return (await holdsPermission(ctx, storeId, 'webhooks.write')) ? ctx.deps.config.secretKey : null;
}

/** Stores a new header map: sealed values, masked names. */
function setHeaders(ctx: Ctx, w: Webhook, headers: Record<string, string>): void {
  w.headersEnc = sealHeaders(ctx.deps.config.secretKey, headers);
  w.headers = maskHeaders(headers);
}

export async function listWebhooks(ctx: Ctx, storeId: string): Promise<WebhookType[]> {
  const rows = await ctx.em.find(Webhook, { storeId }, { orderBy: { id: 'asc' } });
  const key = await headerKey(ctx, storeId);
  return rows.map((w) => view(w, key));
}

export async function getWebhook(ctx: Ctx, storeId: string, id: string): Promise<WebhookType> {
  const webhook = await findWebhook(ctx, storeId, id);
  return view(webhook, await headerKey(ctx, storeId));
}

export async function createWebhook(ctx: Ctx, storeId: string, input: WebhookCreateInput): Promise<WebhookWithSecretType> {
  const url = checkUrl(ctx, input.url, true);
  const events = input.events == null ? [...EVENT_NAMES] : normalizeEvents(input.events);
  const headers = checkHeaders(input.headers ?? {});
  const metadata = checkMetadata(input.metadata ?? {});
  return transaction(ctx, async (tx) => {
    // The store row lock serializes creates, so two at once cannot make an eleventh.
    await lockStore(tx, storeId);
    const count = await tx.em.count(Webhook, { storeId });
    if (count >= WEBHOOKS_PER_STORE) {
      throw new AppError('LIMIT_EXCEEDED', `A store may have at most ${WEBHOOKS_PER_STORE} webhooks`);
    }
    const secret = newWebhookSecret();
    const webhook = tx.em.create(Webhook, {
      storeId,
      name: input.name.trim(),
      url,
      events,
      metadata,
      active: input.active ?? true,
      secretEnc: encryptSecret(ctx.deps.config.secretKey, secret),
    });
    setHeaders(ctx, webhook, headers);
    await tx.em.flush();
    return { ...view(webhook, ctx.deps.config.secretKey), secret };
  });
}

export async function updateWebhook(ctx: Ctx, storeId: string, id: string, input: WebhookUpdateInput): Promise<WebhookWithSecretType> {
  return transaction(ctx, async (tx) => {
    const webhook = await lockWebhook(tx, storeId, id);
    if (input.name != null) webhook.name = input.name.trim();
    if (input.url != null) webhook.url = checkUrl(ctx, input.url, true);
    if (input.events != null) webhook.events = normalizeEvents(input.events);
    if (input.headers != null) setHeaders(ctx, webhook, checkHeaders(input.headers));
    if (input.metadata != null) webhook.metadata = checkMetadata(input.metadata);
    if (input.active != null) webhook.active = input.active;
    let secret: string | null = null;
    if (input.rotateSecret) {
      secret = newWebhookSecret();
      webhook.secretEnc = encryptSecret(ctx.deps.config.secretKey, secret);
    }
    webhook.updatedAt = new Date();
    await tx.em.flush();
    return { ...view(webhook, ctx.deps.config.secretKey), secret };
  });
}

export async function deleteWebhook(ctx: Ctx, storeId: string, id: string): Promise<void> {
  const deleted = await transaction(ctx, (tx) => tx.em.nativeDelete(Webhook, { id, storeId }));
  if (!deleted) throw notFound('webhook');
}

export const deliveryView = (row: Record<string, unknown>): DeliveryType => ({
  id: String(row.id),
  webhookId: (row.webhook_id as string) ?? null,
  event: String(row.event),
  test: Boolean(row.test),
  url: String(row.url),
  status: String(row.status),
  statusCode: row.status_code === null ? null : Number(row.status_code),
  responseTimeMs: Number(row.response_time_ms),
  responseBody: (row.response_body as string) ?? null,
  error: (row.error as string) ?? null,
  timings: (row.timings as DeliveryType['timings']) ?? null,
  redeliveryOf: (row.redelivery_of as string) ?? null,
  createdAt: new Date(row.created_at as string).toISOString(),
});

const attemptView = (a: RecordedAttempt): DeliveryType => ({
  id: a.id,
  webhookId: a.webhookId,
  event: a.event,
  test: a.test,
  url: a.url,
  status: a.status,
  statusCode: a.statusCode,
  responseTimeMs: a.responseTimeMs,
  responseBody: a.responseBody,
  error: a.error,
  timings: a.timings,
  redeliveryOf: a.redeliveryOf,
  createdAt: a.createdAt.toISOString(),
});

export async function webhookHistory(ctx: Ctx, storeId: string, webhookId: string): Promise<DeliveryType[]> {
  await findWebhook(ctx, storeId, webhookId);
  const rows = await (ctx.em as EntityManager).execute(
    'select * from webhook_deliveries where webhook_id = ? order by created_at desc, seq desc limit ?',
    [webhookId, HISTORY_KEPT],
  );
  return rows.map(deliveryView);
}

/** A sample delivery with the saved url, headers and secret, sent now and kept in history. */
export async function testWebhook(ctx: Ctx, storeId: string, webhookId: string, input: { event?: string | null }): Promise<DeliveryType> {
  const webhook = await findWebhook(ctx, storeId, webhookId);
  const event = eventOrDefault(input.event);
  const id = randomUUID();
  const createdAt = new Date();
  const result = await sendAttempt({
    url: webhook.url,
    event,
    deliveryId: id,
    webhookId: webhook.id,
    secret: decryptSecret(ctx.deps.config.secretKey, webhook.secretEnc),
    customHeaders: openHeaders(ctx.deps.config.secretKey, webhook),
    body: payloadBytes(event, createdAt.toISOString(), sampleData(storeId, event), webhook),
    test: true,
    timeoutMs: TEST_TIMEOUT_MS,
    allowed: addressCheck(ctx.deps.config),
  });
  const attempt: RecordedAttempt = { ...result, id, webhookId: webhook.id, event, test: true, url: webhook.url, createdAt, sent: null, redeliveryOf: null };
  await recordAttempt(ctx.em.fork() as EntityManager, attempt);
  return attemptView(attempt);
}

/** Tries a url before it is saved; nothing is recorded. */
export async function testWebhookUrl(ctx: Ctx, storeId: string, input: WebhookUrlTestInput): Promise<UrlTestResultType> {
  const url = checkUrl(ctx, input.url, false);
  const headers = checkHeaders(input.headers ?? {});
  const event = eventOrDefault(input.event);
  const minted = input.secret ? null : newWebhookSecret();
  const id = randomUUID();
  const createdAt = new Date();
  const adHoc = { id: 'wh_test', name: 'Test' };
  const result = await sendAttempt({
    url,
    event,
    deliveryId: id,
    webhookId: adHoc.id,
    secret: input.secret ?? minted!,
    customHeaders: headers,
    body: payloadBytes(event, createdAt.toISOString(), sampleData(storeId, event), adHoc),
    test: true,
    timeoutMs: TEST_TIMEOUT_MS,
    allowed: addressCheck(ctx.deps.config),
  });
  return { ...result, id, webhookId: null, event, test: true, url, redeliveryOf: null, createdAt: createdAt.toISOString(), secret: minted };
}

/**
 * How a manual send reads the record it names, as its own domain shows it (a 404 when the store
 * has no such record). The order and product domains provide these; `src/domains/event-subjects.ts`
 * lists them, so webhooks import no domain.
 */
export type EventSubjects = Record<'order' | 'product', (ctx: Ctx, storeId: string, id: string) => Promise<object>>;

declare module '../core/context.js' {
  interface Deps {
    eventSubjects: EventSubjects;
  }
}

/** Queues one delivery per active subscribed webhook (or the listed ones) for a chosen record or data. */
export async function sendWebhookEvent(ctx: Ctx, storeId: string, input: WebhookSendInput): Promise<SendItemType[]> {
  const event = normalizeEvent(input.event);
  if (!event) throw invalid('event', `unknown event; expected one of ${EVENT_NAMES.join(', ')}`);
  const sources = [input.orderId, input.productId, input.data].filter((v) => v != null).length;
  if (sources !== 1) throw invalid('', 'give exactly one of orderId, productId or data');
  const kind = entityOf(event);
  let data: Record<string, unknown>;
  if (input.data != null) {
    data = { ...input.data, store_id: storeId };
  } else if (input.orderId != null) {
    if (kind !== 'order') throw invalid('orderId', `does not fit the product event ${event}`);
    data = payloadData(storeId, event, { ...(await ctx.deps.eventSubjects.order(ctx, storeId, input.orderId)) }, null);
  } else {
    if (kind !== 'product') throw invalid('productId', `does not fit the order event ${event}`);
    data = payloadData(storeId, event, { ...(await ctx.deps.eventSubjects.product(ctx, storeId, input.productId!)) }, null);
  }
  const timestamp = new Date().toISOString();
  return transaction(ctx, async (tx) => {
    const hooks = await subscribedWebhooks(tx.em as EntityManager, storeId, event, input.webhookIds ?? undefined);
    const jobs = hooks.map((h) => ({ deliveryId: randomUUID(), webhookId: h.id, storeId, event, timestamp, data }));
    await enqueueDeliveries(tx, jobs);
    return jobs.map((j) => ({ webhookId: j.webhookId, deliveryId: j.deliveryId }));
  });
}
