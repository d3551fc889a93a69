import 'reflect-metadata';
import type { Config } from './config.js';
import { initOrm, openDatabase } from './db/orm.js';
import { createSchema } from './server/schema.js';
import { createHttpServer } from './server/http.js';
import type { Deps } from './server/context.js';
import { startWorkers } from './workers.js';
// Background workers and HTTP extensions register themselves on import; the queue
// (dispatcher) starts first, the event retention job schedules on it.
import './webhooks/dispatcher.js';
import './events/hub.js';
import './events/retention.js';
import './events/stream.js';

export interface Service {
  deps: Deps;
  url: string;
  app: Awaited<ReturnType<typeof createHttpServer>>['app'];
  close(): Promise<void>;
}

/** config → database (migrate) → schema → HTTP → workers; close() undoes it in reverse. */
export async function startService(config: Config, opts: { listen?: boolean } = {}): Promise<Service> {
  const target = await openDatabase(config);
  const cleanups: Array<() => Promise<void>> = [() => target.close()];
  const close = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  };
  try {
    const orm = await initOrm(target);
    cleanups.push(() => orm.close(true));
    const deps: Deps = { config, orm, embedded: target.embedded, extras: new Map() };
    deps.extras.set('db', target);
    const stopWorkers = await startWorkers(deps);
    cleanups.push(stopWorkers);
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
    } else {
      await app.ready();
    }
    return { deps, url, app, close };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
