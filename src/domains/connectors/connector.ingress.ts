import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx, Deps } from '../../core/context.js';
import { PERMISSIONS } from '../../core/policy.js';
import { AppError, conflict } from '../../core/errors.js';
import { encryptSecret } from '../../core/secrets.js';
import { applyOrRefuse, lockStore, transaction } from '../../core/tx.js';
import { newId } from '../../lib/ids.js';
import { WebhookMalformed, WebhookUnverifiable } from '../../providers/carrier.js';
import { ConnectorError, type ConnectorEvent, type InstallCallback } from '../../providers/connector.js';
import { systemContext } from '../../core/context.js';
import type { IngressInput as CarrierIngressInput, IngressReply } from '../carrier/carrier.ingress.js';
import { completeAdsOAuth } from '../ads/ads.service.js';
import { consumeState, fromStartingUserAgent, peekState, starterMayFinish, unbindCookie, withStatus, type OAuthState } from '../integrations/oauth-state.js';
import { configuredConnector, enqueueImport, findConnector, topicsOf, webhookAddress, type ConnectorRow } from './connector.service.js';
import { applyConnectorEvent } from './connector.sync.js';

/** What an ingress handler sees of a request (the raw body is kept for the signature), with its path parameters. */
export type IngressInput = Omit<CarrierIngressInput, 'storeId'> & { params: Record<string, string> };

/** Every callback or webhook that cannot be verified gets this very answer, whatever the reason. */
const unverifiable = (what: 'callback' | 'webhook') => new AppError('UNAUTHENTICATED', `The ${what} could not be verified`);
/** Back to the return URL; the state's binding cookie is spent with it. */
const redirect = (location: string, cookie: string): IngressReply => ({ status: 302, headers: { location, 'cache-control': 'no-store', 'set-cookie': cookie } });

/**
 * GET /v1/integrations/connectors/platform/callback: the one OAuth callback Souk hands out. The
 * state says which flow it ends: Meta's (the ads platform) or a shop's app install. Nothing is
 * used up before the request is verified, and anything unverifiable is the same 401: a bad
 * signature, a spent state, or a browser other than the one that started the flow (it lacks the
 * state's cookie). The member who started it must still manage the store's integrations.
 */
export async function platformCallback(deps: Deps, req: IngressInput): Promise<IngressReply> {
  const ctx = systemContext(deps, req.ip);
  const state = req.query.state;
  if (typeof state !== 'string' || !state) throw unverifiable('callback');
  const pending = await peekState(ctx, state);
  if (!pending) throw unverifiable('callback');
  let shop: string | null = null;
  let answer: { code: string | null; error: string | null };
  if (pending.provider === 'meta') {
    answer = { code: nonEmpty(req.query.code), error: nonEmpty(req.query.error) };
  } else {
    const provider = configuredConnector(deps);
    if (!provider) throw unverifiable('callback');
    try {
      const cb: InstallCallback = provider.verifyCallback(req.query, new Date());
      ({ shop } = cb);
      answer = cb;
    } catch (err) {
      if (err instanceof WebhookUnverifiable) throw unverifiable('callback');
      throw err;
    }
  }
  // Neither a code nor the provider's refusal: not an answer to the flow; the state stays usable.
  if (!answer.code && !answer.error) throw new AppError('BAD_REQUEST', 'The callback carries neither a code nor an error');
  // A refusal links nothing, so it needs no binding: whoever brings it back only ends the flow
  // (to a return URL on a configured origin). A code links an account and must come back to its starter.
  const declined = !answer.code;
  if (!declined && !fromStartingUserAgent(deps.config, req.headers.cookie, state) && !(await signedInStarter(ctx, req.headers.authorization, pending))) throw unverifiable('callback');
  const consumed = await consumeState(ctx, state, pending.provider, shop);
  if (!consumed || (pending.provider === 'shopify' && !consumed.connectorId)) throw unverifiable('callback');
  const done = (location: string) => redirect(location, unbindCookie(deps.config, state));
  if (!answer.code) return done(withStatus(consumed.returnUrl, 'denied'));
  if (!(await starterMayFinish(ctx, consumed))) throw new AppError('FORBIDDEN', 'The member who started this flow may no longer manage the store\'s integrations');
  if (consumed.provider === 'meta') return done(await completeAdsOAuth(ctx, consumed, answer.code));
  return done(await completeInstall(deps, consumed, answer.code));
}

const nonEmpty = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * A client that is not a browser (an app that opened the provider's page itself and caught the
 * redirect) proves it is the member who started the flow with that member's own bearer token,
 * one allowed to manage integrations.
 */
async function signedInStarter(ctx: Ctx, authorization: string | string[] | undefined, pending: OAuthState): Promise<boolean> {
  if (typeof authorization !== 'string' || !pending.userId) return false;
  const { actor } = await ctx.deps.resolveCaller(ctx.em, authorization);
  return !!actor && actor.userId === pending.userId && (!actor.scopes || PERMISSIONS['integrations.write'].scopes.some((s) => actor.scopes!.includes(s)));
}

async function setError(deps: Deps, connectorId: string, message: string): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  await em.execute(`update connectors set status = case when status = 'active' then status else 'error' end, last_error = ?, updated_at = ? where id = ?`, [message.slice(0, 500), new Date(), connectorId]);
}

/**
 * A verified install: the code becomes the shop's token (stored encrypted), the webhooks are
 * registered, and the connector turns active with its first import queued in the same
 * transaction. A shop active in another store meanwhile → 409.
 */
async function completeInstall(deps: Deps, state: OAuthState, code: string): Promise<string> {
  const provider = configuredConnector(deps)!;
  const ctx = systemContext(deps, 'connector-install');
  const storeId = state.storeId;
  const connector = await findConnector(ctx, storeId, state.connectorId!);
  if (!connector || connector.shop_domain !== state.shop) return withStatus(state.returnUrl, 'error');
  const [other] = await ctx.em.execute(`select id from connectors where shop_domain = ? and status = 'active' and store_id <> ?`, [connector.shop_domain, storeId]);
  if (other) throw conflict(`The shop ${connector.shop_domain} is already connected to another store`);
  let token: { accessToken: string; scopes: string[] };
  try {
    token = await provider.exchangeCode(connector.shop_domain, code);
    await provider.registerWebhooks(connector.shop_domain, token.accessToken, webhookAddress(deps.config.publicUrl, storeId, connector.id), topicsOf(connector.sync));
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    deps.log.warn({ storeId, connectorId: connector.id, err: err.message }, 'connector install failed');
    await setError(deps, connector.id, err.message);
    return withStatus(state.returnUrl, 'error');
  }
  try {
    await transaction(ctx, async (tx) => {
      await lockStore(tx, storeId);
      await tx.em.execute(
        `update connectors set status = 'active', token_enc = ?, scopes = ?::text[], last_error = null, updated_at = ? where id = ?`,
        [encryptSecret(deps.config.secretKey, token.accessToken), `{${token.scopes.map((s) => JSON.stringify(s)).join(',')}}`, new Date(), connector.id],
      );
      await enqueueImport(tx, connector.id);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict(`The shop ${connector.shop_domain} is already connected to another store`);
    throw err;
  }
  return withStatus(state.returnUrl, 'active');
}

const header = (headers: IngressInput['headers'], name: string) => {
  const v = headers[name];
  return typeof v === 'string' ? v.trim().toLowerCase() : null;
};

/**
 * POST /v1/integrations/connectors/platform/webhook/{storeId}/{connectorId}: one signed event from
 * the connector's shop, recorded once (store + provider + event id: a replay answers 200 and changes
 * nothing) and applied in the same transaction.
 */
export async function platformWebhook(deps: Deps, req: IngressInput): Promise<IngressReply> {
  const ctx = systemContext(deps, req.ip);
  const provider = configuredConnector(deps);
  const { storeId, connectorId } = req.params;
  const connector = provider && /^con_[0-9a-f]{1,40}$/.test(connectorId ?? '') ? await findConnector(ctx, storeId, connectorId) : null;
  if (!provider || !connector || (connector.status !== 'active' && connector.status !== 'error')) throw unverifiable('webhook');
  let event: ConnectorEvent;
  try {
    event = provider.parseWebhook(req.headers, req.rawBody);
  } catch (err) {
    if (err instanceof WebhookUnverifiable) throw unverifiable('webhook');
    if (err instanceof WebhookMalformed) throw new AppError('BAD_REQUEST', `The webhook is malformed: ${err.message}`);
    throw err;
  }
  if (event.shop !== connector.shop_domain || header(req.headers, 'x-shopify-shop-domain') !== connector.shop_domain) throw unverifiable('webhook');
  const duplicate = await transaction(ctx, async (tx) => {
    await lockStore(tx, storeId);
    // Read again under the store lock: an uninstall that committed meanwhile is seen.
    const current: ConnectorRow | null = await findConnector(tx, storeId, connectorId, { lock: true });
    if (!current || (current.status !== 'active' && current.status !== 'error')) throw unverifiable('webhook');
    const now = new Date();
    const [fresh] = await tx.em.execute<Array<{ id: string }>>(
      `insert into inbound_events (id, provider, event_id, connector_id, store_id, topic, received_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (store_id, provider, event_id) do nothing returning id`,
      [newId('ine'), provider.provider, event.eventId, connectorId, storeId, event.topic, now],
    );
    if (!fresh) return true;
    // An event that can never apply (Shopify would redeliver it, then drop the subscription) is kept as rejected.
    const refused = await applyOrRefuse(tx, (sp) => applyConnectorEvent(sp, current, event));
    if (refused) {
      await tx.em.execute('update inbound_events set rejected = ? where id = ?', [refused, fresh.id]);
      deps.log.warn({ storeId, connectorId, topic: event.topic, reason: refused }, 'connector event rejected');
    }
    await tx.em.execute('update connectors set last_event_at = ? where id = ?', [now, connectorId]);
    return false;
  });
  return { status: 200, body: { received: 1, duplicates: duplicate ? 1 : 0 } };
}
