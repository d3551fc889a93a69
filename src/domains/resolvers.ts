import type { NonEmptyArray } from 'type-graphql';
import { AuthResolver } from './auth/auth.resolver.js';
import { StoreResolver } from './stores/store.resolver.js';

/** Every resolver of every domain; the schema is built from this list. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = [AuthResolver, StoreResolver];
