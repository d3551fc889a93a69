import { AppError } from '../../core/errors.js';
import { requireActor, type Actor, type Ctx } from '../../core/context.js';

/** Every OAuth scope, with what it allows (docs/auth.md says the same at more length). */
export const SCOPES = {
  profile: "Read the user's profile (GET /v1/users/auth)",
  'store.read': 'Read the stores the user belongs to and their data',
  'store.products': 'Write products in those stores',
  'store.orders': 'Write orders in those stores',
  'store.integrations': 'Manage webhooks and other integrations',
  'store.settings': 'Create stores, change store settings and members',
  'store.finance': 'Purchase orders and refunds',
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

/** Account management (tokens, apps, profile changes) is for the user's own sessions, never an app. */
export function requireSession(ctx: Ctx): Actor {
  const actor = requireActor(ctx);
  if (actor.kind !== 'session') throw new AppError('FORBIDDEN', 'This action needs a session token, not an app token');
  return actor;
}
