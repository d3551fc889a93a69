import type { FastifyInstance } from 'fastify';
import Router from 'find-my-way';

/**
 * The methods each known path answers, so that a wrong method is 405 with `Allow` (RFC 9110
 * 15.5.6) rather than 404. Every route is mirrored, as it is registered, into a router of the
 * kind fastify routes with; catch-alls (`*`: CORS preflights) make no path known. Call before any
 * route is registered; the result gives the methods of a request URL, none for an unknown path.
 */
export function routeMethods(app: FastifyInstance, maxParamLength: number): (url: string) => string[] {
  const router = Router({ maxParamLength });
  const seen = new Set<string>();
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    const path = route.url ?? route.path;
    if (path === '*' || path === '/*') return;
    for (const method of [route.method].flat()) {
      if (seen.has(`${method} ${path}`)) continue;
      seen.add(`${method} ${path}`);
      methods.add(method);
      router.on(method as Router.HTTPMethod, path, () => {});
    }
  });
  return (url) => {
    const path = url.split('?')[0];
    return [...methods].filter((m) => router.find(m as Router.HTTPMethod, path) !== null).sort();
  };
}
