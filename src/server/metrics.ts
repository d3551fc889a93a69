import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../core/context.js';
import type { Metrics } from '../core/metrics.js';
import type { Module } from '../core/module.js';
import { DELIVERY_QUEUE } from '../events/queue.js';

/** Latency buckets (seconds) for API requests and webhook deliveries. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function createMetrics(deps: Deps): { registry: Registry; metrics: Metrics } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'souk_' });
  const requests = new Counter({ name: 'souk_http_requests_total', help: 'HTTP requests by route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const requestSeconds = new Histogram({ name: 'souk_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [registry] });
  const deliveries = new Counter({ name: 'souk_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] });
  const deliverySeconds = new Histogram({ name: 'souk_webhook_delivery_duration_seconds', help: 'Webhook delivery latency (send to response)', buckets: BUCKETS, registers: [registry] });
  new Gauge({
    name: 'souk_queue_depth',
    help: 'Webhook deliveries waiting in the queue',
    registers: [registry],
    async collect() {
      const [row] = await deps.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from pgboss.job where name = ? and state in ('created','retry')`, [DELIVERY_QUEUE]);
      this.set(row?.n ?? 0);
    },
  });
  new Gauge({
    name: 'souk_realtime_subscribers',
    help: "This process's realtime subscribers (GraphQL subscriptions and SSE streams)",
    registers: [registry],
    collect() {
      this.set(deps.realtime.size);
    },
  });
  new Gauge({
    name: 'souk_cpu_pool_tasks',
    help: 'Tasks of the CPU pool (Markdown, PDFs, images, user schemas) running on its threads and waiting for one',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'running' }, deps.cpu.stats.running);
      this.set({ state: 'waiting' }, deps.cpu.stats.waiting);
    },
  });
  new Gauge({
    name: 'souk_cpu_pool_refusals',
    help: "CPU pool tasks refused since start: saturated (503 with Retry-After), over their budget (stopped at the deadline, out of stack or heap), or limited (429: past a store's or caller's fair share or its budget of stopped work)",
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.set({ reason: 'saturated' }, deps.cpu.stats.saturated);
      this.set({ reason: 'over_budget' }, deps.cpu.stats.overBudget);
      this.set({ reason: 'limited' }, deps.cpu.stats.limited);
    },
  });
  new Gauge({
    name: 'souk_db_pool_connections',
    help: "The ORM pool's connections by state",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = (deps.orm.em.getKnex().client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
      if (!pool) return;
      this.set({ state: 'used' }, pool.numUsed());
      this.set({ state: 'free' }, pool.numFree());
      this.set({ state: 'pending' }, pool.numPendingAcquires());
    },
  });
  new Gauge({
    name: 'souk_db_replica_up',
    help: 'Read replicas (SOUK_DATABASE_REPLICA_URLS): 1 taking reads, 0 skipped (down, lagging beyond SOUK_REPLICA_MAX_LAG_MS, or not checked yet)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of deps.db.reads.status()) this.set({ replica: r.name }, r.state === 'ok' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'souk_db_replica_lag_seconds',
    help: 'How far each read replica was behind the primary at its last check',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of deps.db.reads.status()) if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  return {
    registry,
    metrics: {
      request(method, route, status, seconds) {
        requests.inc({ method, route, status: String(status) });
        requestSeconds.observe({ method, route }, seconds);
      },
      delivery(outcome, seconds) {
        deliveries.inc({ outcome });
        deliverySeconds.observe(seconds);
      },
    },
  };
}

/** Each running service's registry, once its metrics module started with metrics on. */
const registries = new WeakMap<Deps, Registry>();

/**
 * Prometheus metrics, off unless SOUK_METRICS=1 (then at GET /metrics) or SOUK_METRICS_PORT is set
 * (then on that port only, so the API port never shows them).
 */
export const metricsModule: Module = {
  name: 'metrics',
  start: async (deps) => {
    if (!deps.config.metrics && deps.config.metricsPort === null) return;
    const made = createMetrics(deps);
    registries.set(deps, made.registry);
    deps.metrics = made.metrics;
    if (deps.config.metricsPort === null) return;
    const reg = made.registry;
    const server: Server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return void res.writeHead(404).end();
      reg.metrics().then(
        (text) => res.writeHead(200, { 'content-type': reg.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(deps.config.metricsPort!, deps.config.host, resolve));
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  },
  http: {
    register: (app, deps) => {
      if (!deps.config.metrics || deps.config.metricsPort !== null) return;
      app.get('/metrics', async (_req, reply) => {
        const reg = registries.get(deps)!;
        return reply.type(reg.contentType).send(await reg.metrics());
      });
    },
  },
};
