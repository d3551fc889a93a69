import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Deps } from './context.js';

/** OpenAPI path items of routes a module serves outside the REST table. */
export type OpenApiPaths = Record<string, Record<string, unknown>>;

/**
 * One subsystem of the running service. `src/service.ts` lists every module in the order they
 * start; they stop in reverse. Nothing registers itself by being imported. Domains add the hooks
 * they call by declaration merging beside their own code (`orders/order.hooks.ts`,
 * `stores/store.hooks.ts`, `integrations/integration.hooks.ts`); a module implements the hooks it needs.
 */
export interface Module {
  name: string;
  /**
   * Runs after the database is migrated and before HTTP listens; returns how to stop. In every
   * role it sets up what requests need (queues, caches, providers); its background work (queue
   * workers, timers) it starts only where `runsWork(deps)` says so.
   */
  start?: (deps: Deps) => Promise<(() => Promise<void>) | void>;
  /** Routes outside the REST table (event streams, asset bytes), with their OpenAPI entries. */
  http?: {
    register: (app: FastifyInstance, deps: Deps) => void;
    paths?: OpenApiPaths;
    /** Path prefixes whose CORS the module answers itself (preflights included), instead of SOUK_CORS_ORIGINS. */
    corsPrefixes?: readonly string[];
  };
  /**
   * Answers that need neither the router, a context nor the database (the catalogue's 304s):
   * asked first for every GET, so each must be cheap and decline whatever it is unsure of.
   */
  early?: (deps: Deps) => EarlyAnswerer;
}

/** What an early answerer decided: the server writes it (with its request id) and logs it as any answer. */
export interface EarlyAnswer {
  status: number;
  headers: Record<string, string>;
  /** The route pattern its log line and metrics name. */
  route: string;
  storeId?: string;
}

/** Answers a GET from memory alone, before the framework routes it, or returns null to let it go on. */
export type EarlyAnswerer = (req: IncomingMessage, ip: string) => EarlyAnswer | null;

/** Whether this process runs background work: queue workers and timers (SOUK_ROLE worker or all, not web). */
export const runsWork = (deps: Pick<Deps, 'config'>): boolean => deps.config.role !== 'web';

declare module './context.js' {
  interface Deps {
    /** The started modules, in order (the domains' hooks run over them). */
    modules: readonly Module[];
  }
}
