import type { AuthCache, ResolveCaller } from '../core/context.js';
import { bearerToken, resolveActor, UNKNOWN_TOKEN } from './auth/actor.service.js';
import { PAYMENT_TOKEN_PREFIX, paymentGrantOf } from './orders/payment-token.js';

/**
 * Who presents a bearer token, for every request's context: an order payment token (the order domain
 * issues it, told apart by its prefix) or an auth token (auth). Composed here, above both domains.
 */
export function callerResolver(sessionTtlMs: number, cache: AuthCache): ResolveCaller {
  return async (em, authorization) => {
    if (!authorization) return { actor: null, failure: null };
    const bearer = bearerToken(authorization);
    if ('failure' in bearer) return { actor: null, failure: bearer.failure };
    if (bearer.token.startsWith(PAYMENT_TOKEN_PREFIX)) {
      const paymentGrant = await paymentGrantOf(em, bearer.token);
      return paymentGrant ? { actor: null, failure: null, paymentGrant } : { actor: null, failure: UNKNOWN_TOKEN };
    }
    return resolveActor(em, bearer.token, sessionTtlMs, cache);
  };
}
