import { Extensions } from 'type-graphql';
import type { GraphQLField } from 'graphql';
import type { Ctx } from './context.js';

/**
 * What a subscriber of a Subscription field sees, as a key: called with its context (the field's
 * policy has already held) and the field's arguments. Subscribers with equal keys, documents and
 * variables must get the same results. null: this subscriber shares with nobody.
 */
export type ViewKey = (ctx: Ctx, args: Record<string, unknown>) => string | null;

/**
 * Declares a Subscription field's view (docs/realtime.md, "How subscriptions share work"):
 * subscribers of the same document and variables whose view keys are equal share one source
 * stream, one execution per event and one serialized frame. A field without it is not shared.
 */
export const Multiplexed = (view: ViewKey) => Extensions({ multiplexed: view });

export function viewKeyOf(field: GraphQLField<unknown, unknown>): ViewKey | undefined {
  return (field.extensions as { multiplexed?: ViewKey } | undefined)?.multiplexed;
}
