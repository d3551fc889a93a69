import { User } from '../domains/users/user.entity.js';
import { AuthToken } from '../domains/auth/token.entity.js';
import { Membership, Store } from '../domains/stores/store.entity.js';

/** Every entity, listed explicitly (no file-system discovery). */
export const ENTITIES = [User, AuthToken, Store, Membership];
