import Fastify, { type FastifyInstance } from 'fastify';
import type { Deps } from '../core/context.js';
import { problem } from '../core/errors.js';
import { sendProblem } from '../edge/http-problem.js';
import { metricsModule } from './metrics.js';

/** `/healthz` (the process answers) and `/readyz` (and reaches its database), on every role's HTTP. */
export function registerProbes(app: FastifyInstance, deps: Deps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await deps.orm.em.getConnection().execute('select 1');
      return { status: 'ready' };
    } catch {
      return sendProblem(reply, problem('UNAVAILABLE', 'The database is not reachable'));
    }
  });
}

/**
 * A worker's HTTP (SOUK_ROLE=worker): `/healthz`, `/readyz` and `/metrics` (with SOUK_METRICS=1),
 * for supervisors and scrapers; no API. Everything else is a 404 problem.
 */
export async function createProbeServer(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({ forceCloseConnections: true });
  registerProbes(app, deps);
  metricsModule.http?.register(app, deps);
  app.setNotFoundHandler((req, reply) => sendProblem(reply, problem('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}: this process runs SOUK_ROLE=worker`)));
  await app.ready();
  return app;
}
