/**
 * What Souk needs of an ads platform: the OAuth 2 authorization-code flow for the merchant's
 * account, its ad accounts, revocation, and server-side conversion events. Meta is the first
 * adapter; another platform implements the same interface.
 */

export interface AdsToken {
  accessToken: string;
  /** Null: the platform gave no expiry. */
  expiresAt: Date | null;
}

export interface AdsAccountRef {
  id: string;
  name: string | null;
}

export interface AdAccount {
  /** The platform's node id, `act_123` for Meta. */
  id: string;
  name: string | null;
  currency: string | null;
  status: string;
}

/** One server-side conversion event, user data already hashed. */
export interface ConversionEvent {
  event_name: string;
  event_time: number;
  event_id: string;
  action_source: string;
  user_data: Record<string, string[]>;
  custom_data: Record<string, unknown>;
}

export interface AdsProvider {
  readonly provider: string;
  /** Where the merchant is sent to grant access; the platform redirects back with `code` and `state`. */
  authorizationUrl(opts: { state: string; redirectUri: string; scopes: readonly string[] }): string;
  exchangeCode(code: string, redirectUri: string): Promise<AdsToken>;
  /** A short-lived user token traded for a long-lived one. */
  longLived(token: string): Promise<AdsToken>;
  account(token: string): Promise<AdsAccountRef>;
  grantedScopes(token: string): Promise<string[]>;
  adAccounts(token: string, cursor: string | null, limit: number): Promise<{ data: AdAccount[]; nextCursor: string | null }>;
  revoke(token: string): Promise<void>;
  sendEvents(opts: { pixelId: string; token: string; events: ConversionEvent[]; testEventCode: string | null }): Promise<{ received: number }>;
}

/**
 * A failed platform call, by what the caller should do: `expired` (the token is no longer valid:
 * reconnect), `auth` (our app credentials or the request's permissions were refused),
 * `rate_limited`, `unavailable` (5xx, timeout, network), `rejected` (the request itself).
 */
export class AdsError extends Error {
  constructor(
    readonly kind: 'expired' | 'auth' | 'rate_limited' | 'unavailable' | 'rejected',
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AdsError';
  }
}
