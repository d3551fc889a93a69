import 'reflect-metadata';
import type { Config } from './config.js';
import { initOrm, openDatabase } from './db/orm.js';
import { ENTITIES } from './domains/entities.js';
import { createSchema } from './server/schema.js';
import { createHttpServer } from './server/http.js';
import type { Deps } from './core/context.js';
import type { Module } from './core/module.js';
import { createLogger, type Logger } from './core/log.js';
import { mailerModule } from './lib/mailer.js';
import { deliveryModule } from './webhooks/dispatcher.js';
import { realtimeModule } from './events/hub.js';
import { retentionModule } from './events/retention.js';
import { eventStreamModule } from './events/stream.js';
import { ordersModule } from './domains/orders/order.module.js';
import { inventoryModule } from './domains/inventory/inventory.module.js';
import { purchaseOrderSendModule } from './domains/purchase-orders/purchase-order.send.js';
import { carrierModule } from './domains/carrier/carrier.poller.js';
import { paymentsModule } from './domains/payments/payment.reconcile.js';
import { metricsModule } from './server/metrics.js';
import { aiModule } from './domains/ai/ai.module.js';
import { dashboardModule } from './server/dashboard.js';
import { optionsModule } from './domains/options/options.cache.js';
import { authCacheModule, ProcessAuthCache } from './domains/auth/auth-cache.js';
import { callerResolver } from './domains/callers.js';
import { EVENT_SUBJECTS } from './domains/event-subjects.js';
import { adsModule } from './domains/ads/ads.module.js';
import { connectorModule } from './domains/connectors/connector.module.js';

/**
 * Every module of the service, in start order (stopped in reverse). Metrics first, so every later
 * module can report; the mailer before modules that mail; the queue engine (delivery) before
 * anything that schedules jobs on it.
 */
/** Platform services every module may rely on: started before the modules, whatever list is given, and stopped after them. */
const PLATFORM: readonly Module[] = [authCacheModule];

export const MODULES: readonly Module[] = [
  metricsModule,
  mailerModule,
  deliveryModule,
  realtimeModule,
  retentionModule,
  eventStreamModule,
  ordersModule,
  inventoryModule,
  paymentsModule,
  purchaseOrderSendModule,
  carrierModule,
  aiModule,
  adsModule,
  connectorModule,
  dashboardModule,
  optionsModule,
];

export interface Service {
  deps: Deps;
  url: string;
  app: Awaited<ReturnType<typeof createHttpServer>>['app'];
  close(): Promise<void>;
}

/** config → database (migrate) → modules → schema → HTTP; close() undoes it in reverse. */
export async function startService(config: Config, opts: { listen?: boolean; modules?: readonly Module[]; log?: Logger } = {}): Promise<Service> {
  const modules = [...PLATFORM, ...(opts.modules ?? MODULES)];
  const target = await openDatabase(config, opts.log);
  const cleanups: Array<() => Promise<void>> = [() => target.close()];
  const close = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  };
  try {
    const orm = await initOrm(target, ENTITIES);
    cleanups.push(() => orm.close(true));
    const authCache = new ProcessAuthCache();
    const deps: Deps = {
      config,
      orm,
      embedded: target.embedded,
      db: target,
      modules,
      log: opts.log ?? createLogger(config.logLevel),
      authCache,
      resolveCaller: callerResolver(config.sessionTtlMs, authCache),
      eventSubjects: EVENT_SUBJECTS,
    };
    for (const m of modules) {
      const stop = await m.start?.(deps);
      if (stop) cleanups.push(stop);
    }
    const schema = await createSchema();
    const { app, apollo } = await createHttpServer(deps, schema);
    // Fastify closes Apollo through the drain plugin's onClose hook.
    cleanups.push(async () => {
      await app.close();
      await apollo.stop().catch(() => {});
    });
    let url = '';
    if (opts.listen !== false) {
      url = await app.listen({ host: config.host, port: config.port });
      // An ephemeral port (PORT=0) is known only now: a default public URL follows it.
      if (config.publicUrl === `http://${config.host}:0`) config.publicUrl = url;
    } else {
      await app.ready();
    }
    return { deps, url, app, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
