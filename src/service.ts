import 'reflect-metadata';
import { defaultPublicUrl, type Config } from './config.js';
import { initOrm, openDatabase } from './db/orm.js';
import { startReadReplicas } from './db/replicas.js';
import { ENTITIES } from './domains/entities.js';
import { createSchema } from './server/schema.js';
import { createHttpServer } from './server/http.js';
import { createProbeServer } from './server/probes.js';
import type { Deps } from './core/context.js';
import type { Module } from './core/module.js';
import { createLogger, type Logger } from './core/log.js';
import { createMailer } from './lib/mailer.js';
import { createQueue, queueModule } from './events/queue.js';
import { deliveryModule } from './webhooks/dispatcher.js';
import { createHub, realtimeModule } from './events/hub.js';
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
import { exploreModule } from './server/explore.js';
import { adminModule } from './server/admin.js';
import { optionsModule } from './domains/options/options.cache.js';
import { authCacheModule, ProcessAuthCache } from './domains/auth/auth-cache.js';
import { callerResolver } from './domains/callers.js';
import { EVENT_SUBJECTS } from './domains/event-subjects.js';
import { adsModule } from './domains/ads/ads.module.js';
import { connectorModule } from './domains/connectors/connector.module.js';
import { createCpuPool } from './cpu/pool.js';
import { storefrontModule } from './domains/storefront/storefront.module.js';
import { storefrontKeysModule } from './domains/storefront/storefront-keys.service.js';
import { catalogVersionsModule } from './domains/storefront/storefront.freshness.js';
import { storefrontLimitsModule } from './domains/storefront/storefront-limits.js';

/**
 * The platform services' modules: the job engine first, then what keeps the auth cache and the
 * realtime hub fed. They start before the modules, whatever list is given, and stop after them.
 */
const PLATFORM: readonly Module[] = [queueModule, authCacheModule, realtimeModule];

/** Every other module of the service, in start order (stopped in reverse). Metrics first, so every later module can report. */
export const MODULES: readonly Module[] = [
  metricsModule,
  deliveryModule,
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
  exploreModule,
  adminModule,
  optionsModule,
  storefrontModule,
  storefrontKeysModule,
  catalogVersionsModule,
  storefrontLimitsModule,
];

export interface Service {
  deps: Deps;
  url: string;
  app: Awaited<ReturnType<typeof createHttpServer>>['app'];
  close(): Promise<void>;
}

/**
 * config → database (migrate) → modules → schema → HTTP; close() undoes it in reverse. SOUK_ROLE
 * decides what runs: `web` starts no background work (see `runsWork`), `worker` no API.
 */
export async function startService(config: Config, opts: { listen?: boolean; modules?: readonly Module[]; log?: Logger } = {}): Promise<Service> {
  const given = opts.modules ?? MODULES;
  // A list that names a platform module itself does not start it twice.
  const modules = [...PLATFORM.filter((m) => !given.includes(m)), ...given];
  const target = await openDatabase(config, opts.log);
  const cleanups: Array<() => Promise<void>> = [() => target.close()];
  const close = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  };
  try {
    const orm = await initOrm(target, ENTITIES);
    cleanups.push(() => orm.close(true));
    const log = opts.log ?? createLogger(config.logLevel);
    // A worker serves no reads: it neither checks nor uses the replicas.
    const replicas = startReadReplicas(orm, config.role === 'worker' ? [] : target.replicas, { maxLagMs: config.replicaMaxLagMs, log });
    target.reads = replicas.route;
    cleanups.push(() => replicas.close());
    // The platform services are built here, so every field of Deps is set before any module starts.
    const base = { config, orm, embedded: target.embedded, db: target, log };
    const cpu = createCpuPool({ threads: config.cpuThreads, log });
    cleanups.push(() => cpu.close());
    const authCache = new ProcessAuthCache();
    const mailer = createMailer(base);
    // Mail still being handed over is drained once the modules stopped, before the database closes.
    cleanups.push(() => mailer.close());
    const deps: Deps = {
      ...base,
      modules,
      queue: createQueue(base),
      realtime: createHub(base),
      mailer,
      cpu,
      authCache,
      resolveCaller: callerResolver(config.sessionTtlMs, authCache),
      eventSubjects: EVENT_SUBJECTS,
    };
    for (const m of modules) {
      const stop = await m.start?.(deps);
      if (stop) cleanups.push(stop);
    }
    // A worker (SOUK_ROLE=worker) serves only its probes and metrics: no schema, no API.
    const { app, apollo } = config.role === 'worker' ? { app: await createProbeServer(deps), apollo: null } : await createHttpServer(deps, await createSchema());
    // Fastify closes Apollo through the drain plugin's onClose hook.
    cleanups.push(async () => {
      await app.close();
      await apollo?.stop().catch(() => {});
    });
    let url = '';
    if (opts.listen !== false) {
      url = await app.listen({ host: config.host, port: config.port });
      // An ephemeral port (PORT=0) is known only now: a default public URL follows it.
      if (config.publicUrl === defaultPublicUrl(config.host, 0)) config.publicUrl = defaultPublicUrl(config.host, Number(new URL(url).port));
    } else {
      await app.ready();
    }
    return { deps, url, app, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
