import type { FastifyInstance } from 'fastify';
import type { Ctx, Deps } from './context.js';

/** A store integration about to be deleted, with its secrets decrypted, as modules see it. */
export interface IntegrationRef {
  storeId: string;
  key: string;
  provider: string | null;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** OpenAPI path items of routes a module serves outside the REST table. */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/**
 * One subsystem of the running service. `src/service.ts` lists every module in the order they
 * start; they stop in reverse. Nothing registers itself by being imported.
 */
export interface Module {
  name: string;
  /** Runs after the database is migrated and before HTTP listens; returns how to stop. */
  start?: (deps: Deps) => Promise<(() => Promise<void>) | void>;
  /** Routes outside the REST table (event streams, asset bytes), with their OpenAPI entries. */
  http?: { register: (app: FastifyInstance, deps: Deps) => void; paths?: OpenApiPaths };
  /** Runs inside a new store's creating transaction (default statuses, ...). */
  onStoreCreated?: (ctx: Ctx, storeId: string) => Promise<void>;
  /**
   * Runs before a store integration is deleted, outside any transaction: revoke it at its
   * provider where the provider allows (best effort) and drop what the module keeps for it.
   */
  onIntegrationDeleted?: (ctx: Ctx, integration: IntegrationRef) => Promise<void>;
  /** Runs once a registry write (PUT, PATCH, DELETE) of a store integration committed: refresh what the module keeps of it. */
  onIntegrationChanged?: (ctx: Ctx, storeId: string, key: string) => Promise<void>;
}

declare module './context.js' {
  interface Deps {
    /** The started modules, in order (store creation runs their `onStoreCreated`). */
    modules: readonly Module[];
  }
}
